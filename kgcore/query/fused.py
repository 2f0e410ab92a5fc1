"""Rankings over the contextual graph: GroundedKG's fused ranking, and :func:`rank`, which ``lesegr`` shares.

* ``lesegr`` (:mod:`kgcore.query.methods.lesegr`) ranks every sentence in scope by
  :mod:`kgcore.query.propagation` over BM25 and dense relevance alone.
* The **fused GroundedKG ranking** adds GroundedKG's alignment evidence
  (the query graph recurring among a sentence's own nodes) as a third
  signal inside the same propagation, and ranks every sentence in scope,
  not only the paper's union, so a sentence the node matching missed can
  still win on its words.  It replaces the hand-weighted
  :func:`kgcore.query.methods.groundedkg.graph_score`, which stays selectable
  (``ranking="graph-score"``); without a budget GroundedKG still returns
  the paper's plain union.

Every selected sentence carries ``signals``: its lexical, dense and graph
relevance, its score before and after propagation, and the neighbours
(sentences or chunks, with their edge kinds) whose messages lifted it, so
the Ask page can say why it ranked.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import numpy as np
from scipy import sparse

from kgcore.core.repeats import text_key
from kgcore.core.settings import RetrievalOptions
from kgcore.core.types import SelectedSentence
from kgcore.index.store.disk import CacheKey, Index
from kgcore.index.views.context_part import Boundary
from kgcore.index.views.context_types import ContextGraph
from kgcore.index.views.contextual import context_graph
from kgcore.query import names, propagation
from kgcore.query.align import GraphMatch, aligned_nodes, paper_union
from kgcore.query.asked_kind import AskedKind, resolved_pair
from kgcore.query.context import budget_positions, selected_sentence, sentence_words

#: How strongly a word budget prefers short sentences (score per words**exponent, relative to the mean).
LENGTH_EXPONENT = 0.0
#: Neighbours reported per sentence in its ``signals``.
REPORTED_NEIGHBOURS = 3
#: Under a larger word budget the fused ranking fills only the first GRAPH_HEAD_WORDS words; the rest is filled by
#: the same propagation without the graph signal (``lesegr``'s ranking).  The alignment evidence is a precision
#: signal: on every dev set the fused ranking beats ``lesegr`` up to 1,000 words on Crusoe (0.677 against 0.512
#: at 200) and trails it at 2,000 (Crusoe 0.861 / 0.881, QASPER 0.810 / 0.816, ObliQA 0.665 / 0.670): past the
#: strong alignments, the normalised evidence of weak ones displaces text-relevant sentences.  With 1,000 the dev
#: sets at 2,000 words give Crusoe 0.861 -> 0.883, QASPER 0.810 -> 0.815, ObliQA 0.665 -> 0.677, Peter Rabbit
#: unchanged, and nothing at or under 1,000 changes; 500 gave the same at 2,000 but Crusoe 0.816 -> 0.810 and
#: QASPER 0.743 -> 0.739 at 1,000 (ObliQA 0.641 -> 0.650); half of each budget lost at 200 words (Crusoe 0.521).
GRAPH_HEAD_WORDS = 1000
#: Whether a sentence whose text (whitespace and case aside) repeats a better-ranked one is left out of the ranking:
#: a collection's repeated headings and phrases ("Conflicts of interest.", four times in one ObliQA rulebook, took
#: four places of a 200-word context) say nothing new.  ObliQA repeats 1,840 of its 29,889 sentences, The Phantom
#: of the Opera 104 of 6,090 ('"Yes."'), Robinson Crusoe 2.  Dev sets (answer-token or passage recall, 200 / 500 /
#: 1,000 / 2,000 words): ObliQA 0.485 -> 0.490 and 0.589 -> 0.591 at 200 and 500 words, QASPER 0.458 -> 0.461 at
#: 200, every other cell unchanged (``lesegr``: QASPER 0.463 -> 0.477 at 200, the rest unchanged).
DEDUPE_TEXTS = True
#: A word budget of at most this many words is *small*: the fused ranking then propagates over
#: :data:`SMALL_BUDGET_LAYERS` layers instead of :data:`kgcore.query.propagation.LAYERS` (see :func:`layers_for`).
#: Where a second layer stops helping, on people's questions (NarrativeQA design books, 149 questions, answer-token
#: recall, paired 95% interval against one layer; bench/experiments/narrativeqa_ablations.py): 200 words +0.031
#: [+0.008, +0.055], 250 +0.015 [-0.026, +0.053], 300 -0.015 [-0.044, +0.012], 400 -0.014 [-0.041, +0.009], 500
#: -0.003, 1,000 -0.007, 2,000 -0.014 (each within its interval); so 250, the largest budget measured where it
#: did not lose.
SMALL_BUDGET_WORDS = 250
#: Propagation layers of the fused ranking under a small word budget (:data:`SMALL_BUDGET_WORDS`).  A second layer
#: lets a sentence be lifted by what its neighbours' neighbours say: when the context holds only a few sentences,
#: the ones whose neighbourhood (the same scene, the chunk around it) is about the question rank above a lone
#: sentence that shares a word with it.  NarrativeQA design books at 200 words: 1 / 2 / 3 layers 0.347 / 0.378 /
#: 0.376 (the best text method 0.337).  Crusoe dev chose one layer at 500 and 1,000 words
#: (:data:`kgcore.query.propagation.LAYERS`), and it stays one there.
SMALL_BUDGET_LAYERS = 2
#: How much a sentence (or passage) holding the question's names -- its characters, with coreference -- weighs above
#: one holding none (:mod:`kgcore.query.names`: f0 times ``1 + NAME_WEIGHT * share``), under budgets larger than
#: :data:`SMALL_BUDGET_WORDS` (see :func:`name_weight_for`).  BM25 gives a novel's main characters almost no weight
#: (they are its commonest names), so a context of 1,000 words held too few sentences about the character asked.
#: People's questions (NarrativeQA design books, 149 questions, answer-token recall against no names at 500 / 1,000 /
#: 2,000 words, bench/experiments/narrativeqa_fusion.py): 1 gives -0.003 [-0.019, +0.014] / +0.030 [+0.004, +0.058] /
#: +0.011 [-0.010, +0.033]; 0.25 / 0.5 / 2 / 4 give -0.009 / -0.003 / -0.003 / -0.004 at 500, +0.018 / +0.010 /
#: +0.026 / +0.025 at 1,000, +0.011 / +0.007 / +0.007 / +0.003 at 2,000.  Under two layers (200 words) every weight
#: lost (1: -0.034 [-0.063, -0.006]); with one layer there it was a tie (0.347 -> 0.349), so small budgets keep none.
#: Held-out books, looked at once: 500 -0.029 [-0.066, +0.002], 1,000 +0.002, 2,000 +0.019 [+0.003, +0.038].
NAME_WEIGHT = 1.0
TEXT_IDS: CacheKey = CacheKey("sentence-text-ids")
#: Reorders the fused order (rows, best first) given every sentence's fused score: the multi-hop walk.
Reorder = Callable[[np.ndarray, np.ndarray], np.ndarray]
GATED: CacheKey = CacheKey("context-graph-gated")


def rank_fused(index: Index, question: str, gm: GraphMatch, options: RetrievalOptions,
               reorder: Reorder | None = None, names_weight: float | None = None, asked: AskedKind | None = None
               ) -> tuple[list[SelectedSentence], int]:
    """GroundedKG's fused ranking of every sentence in scope, budgeted, in reading order; and the candidates.
    ``reorder`` (the multi-hop walk, :mod:`kgcore.query.multihop`) may reorder the fused order before the budget;
    ``names_weight`` replaces :func:`name_weight_for` the budget (the walk weighs no names); ``asked``: the
    question's asked kind, which raises the candidates holding an answer of it (:mod:`kgcore.query.asked_kind`)."""
    cg = context_graph(index)
    sig = propagation.signals(index, cg, question, gm.vector, gm.sims, gm.scope, graph=gm.alignment.graph)
    weight = name_weight_for(options.budget_words) if names_weight is None else names_weight
    sig = replace(sig, focus=names.focus(index, cg, question, weight))
    kept = rank(index, cg, sig, options, gm, reorder, asked)
    for s in kept:
        row = index.sentence_row(s.id)
        s.aligned = aligned_nodes(index, gm.alignment, row, gm.query_keys, gm.query_edges)
        if asked is not None and row in asked.rows.get(int(s.signals.get("stage") == "text"), ()):
            s.signals["asked"] = asked.expected.kind  # raised by the stage that placed it
    return kept, int(sig.scope[: cg.n_sentences].sum())


@dataclass
class Ranking:
    """A question's ranking over the contextual graph before the budget: the order (rows, best first), how many
    of its first rows the first stage ranked, and what explains each score."""

    order: np.ndarray
    head: int
    stages: list[tuple[propagation.Signals, list[np.ndarray]]]
    edges: sparse.csr_matrix
    norm: np.ndarray
    #: Per stage, the messages of nodes other shards hold (a shard's ranking; none in one process).
    incoming: tuple[propagation.Incoming | None, ...] = ()
    #: The shard's edges to those nodes, to explain their messages (:mod:`kgcore.index.views.context_part`).
    boundary: Boundary | None = None

    def heard(self, stage: int) -> propagation.Incoming | None:
        """What stage ``stage`` hears from other shards (None: nothing)."""
        return self.incoming[stage] if stage < len(self.incoming) else None

    def finals(self) -> np.ndarray:
        """Each place's score: its row's final score in the stage that ranked it."""
        out = self.stages[0][1][-1][self.order]
        if len(self.stages) > 1:
            out[self.head:] = self.stages[1][1][-1][self.order[self.head:]]
        return out


def rank(index: Index, cg: ContextGraph, sig: propagation.Signals, options: RetrievalOptions,
         gm: GraphMatch | None = None, reorder: Reorder | None = None, asked: AskedKind | None = None
         ) -> list[SelectedSentence]:
    """The sentences in scope the budget keeps, best first by final score, with ``signals``, in reading order.

    For GroundedKG (``gm`` given) under more than :data:`GRAPH_HEAD_WORDS` words, the fused order fills that
    many words and the order without the graph signal the rest; each sentence's ``signals["stage"]`` says which
    ranked it (``graph`` or ``text``) and its score and breakdown are that ranking's.
    """
    r = ranking(index, cg, sig, options, gm, reorder, two_stages=gm is not None and bool(sig.graph.any()),
                asked=asked)
    places = budget_positions(sentence_words(index)[r.order], options.budget_sentences, options.budget_words)
    return sorted(explained(index, cg, r, places, gm), key=lambda s: s.position)


def ranking(index: Index, cg: ContextGraph, sig: propagation.Signals, options: RetrievalOptions,
            gm: GraphMatch | None = None, reorder: Reorder | None = None, two_stages: bool = False,
            incoming: tuple[propagation.Incoming | None, ...] = (), boundary: Boundary | None = None,
            asked: AskedKind | None = None) -> Ranking:
    """The order :func:`rank` budgets (``two_stages``: over :data:`GRAPH_HEAD_WORDS` words, the graph's head and
    then the order without the graph signal, as :func:`rank` describes); ``incoming``, per stage, and
    ``boundary``: a shard's messages from other shards (:class:`Ranking`); ``asked``: each stage's first
    candidates reordered by the question's asked kind (:mod:`kgcore.query.asked_kind`)."""
    edges = gated_edges(index, cg)
    r = Ranking(np.zeros(0, np.int64), 0, [], edges, np.zeros(0), incoming, boundary)
    r.norm = propagation.message_norm(edges, sig, incoming=r.heard(0))  # both stages': the gates are BM25's
    depth = stage_layers(options, gm is not None)[0]
    r.stages.append((sig, propagation.propagate(edges, sig, layers=depth, norm=r.norm, incoming=r.heard(0))))
    stages, norm = r.stages, r.norm
    order = _ordered(index, stages[0][1][-1][: cg.n_sentences], options, asked, 0)
    if reorder is not None:
        order = reorder(order, stages[0][1][-1][: cg.n_sentences])
    head = len(order)
    if two_stages and options.budget_words > GRAPH_HEAD_WORDS:
        text = without_graph(sig)
        stages.append((text, propagation.propagate(edges, text, norm=norm, incoming=r.heard(1))))
        order, head = _graph_head(index, order, _ordered(index, stages[1][1][-1][: cg.n_sentences], options, asked, 1))
        order = _deduped(index, order)  # the head (deduplicated above) keeps its rows; the text order is cut here
    r.order, r.head = order, head
    return r


def text_order(index: Index, cg: ContextGraph, r: Ranking, options: RetrievalOptions) -> np.ndarray:
    """The second stage of a two-stage ranking (see :func:`rank`) added to ``r``: its order without the graph
    signal (rows, repeated texts left out), for a driver that takes each shard's graph head first."""
    sig = r.stages[0][0]
    text = without_graph(sig)
    r.stages.append((text, propagation.propagate(r.edges, text, norm=r.norm, incoming=r.heard(1))))
    return _ordered(index, r.stages[1][1][-1][: cg.n_sentences], options, None, 1)  # the driver raises it


def explained(index: Index, cg: ContextGraph, r: Ranking, places: Sequence[int], gm: GraphMatch | None = None
              ) -> list[SelectedSentence]:
    """The sentences at ``places`` of ``r``'s order, each with its score, rank (place + 1) and ``signals``."""
    kept = {index.sentences[int(r.order[place])].id for place in places}
    union = paper_union(index, gm.matches, gm.scope, kept) if gm is not None else {}
    out = []
    for place in places:
        row = int(r.order[place])
        entry = union.get(index.sentences[row].id, {"nodes": [], "queries": []})
        stage = 0 if place < r.head else 1
        stage_sig, layers = r.stages[stage]
        signals = _explain(index, cg, r, stage_sig, layers, row, r.heard(stage))
        if len(r.stages) > 1:
            signals["stage"] = "graph" if place < r.head else "text"
        out.append(selected_sentence(
            index, row, selected_by=list(entry["nodes"]), query_nodes=sorted(entry["queries"]),
            retrieval_count=len(entry["nodes"]), similarity=round(float(_cosine(stage_sig)[row]), 4),
            score=round(float(layers[-1][row]), 4), rank=place + 1, signals=signals))
    return out


def gated_edges(index: Index, cg: ContextGraph) -> sparse.csr_matrix:
    """:func:`~kgcore.query.propagation.gated` of the index's contextual graph ``cg``, made once per index."""
    return index.cache.get(GATED, lambda: propagation.gated(cg))


def without_graph(sig: propagation.Signals) -> propagation.Signals:
    """The second stage's signals: ``sig`` without the graph signal (the gates, the sparse relevance, unchanged)."""
    return replace(sig, graph=np.zeros_like(sig.graph))


def stage_layers(options: RetrievalOptions, fused_ranking: bool) -> tuple[int, ...]:
    """The propagation layers of each stage of a ranking: the fused ranking's first by :func:`layers_for` the
    budget and, over :data:`GRAPH_HEAD_WORDS` words, a second (without the graph signal) of
    :data:`~kgcore.query.propagation.LAYERS`; ``lesegr`` one stage of :data:`~kgcore.query.propagation.LAYERS`.

    >>> [stage_layers(RetrievalOptions(budget_words=words), True) for words in (200, 500, 2000)]
    [(2,), (1,), (1, 1)]
    >>> stage_layers(RetrievalOptions(budget_words=200), False)
    (1,)
    """
    if not fused_ranking:
        return (propagation.LAYERS,)
    first = layers_for(options.budget_words)
    return (first, propagation.LAYERS) if options.budget_words > GRAPH_HEAD_WORDS else (first,)


def layers_for(budget_words: int) -> int:
    """Propagation layers of the fused ranking under ``budget_words`` (0: no word budget): :data:`SMALL_BUDGET_LAYERS`
    when the budget is small (:data:`SMALL_BUDGET_WORDS`), else :data:`kgcore.query.propagation.LAYERS`.

    >>> [layers_for(words) for words in (0, 200, 250, 300, 2000)]  # no budget, small ones, larger ones
    [1, 2, 2, 1, 1]
    """
    return SMALL_BUDGET_LAYERS if 0 < budget_words <= SMALL_BUDGET_WORDS else propagation.LAYERS


def name_weight_for(budget_words: int) -> float:
    """The weight of the question's names (:data:`NAME_WEIGHT`) under ``budget_words`` (0: no word budget): none
    under a small budget, where two propagation layers already lift the question's scenes (:func:`layers_for`).

    >>> [name_weight_for(words) > 0 for words in (0, 200, 250, 300, 2000)] == [NAME_WEIGHT > 0, False, False,
    ...                                                                        NAME_WEIGHT > 0, NAME_WEIGHT > 0]
    True
    """
    return 0.0 if 0 < budget_words <= SMALL_BUDGET_WORDS else NAME_WEIGHT


def _ranked(index: Index, final: np.ndarray, options: RetrievalOptions) -> np.ndarray:
    """Rows with a positive final score, best first (per word when :data:`LENGTH_EXPONENT` is set)."""
    rows = np.flatnonzero(final > 0)
    return rows[np.argsort(-_per_word(index, final, rows, options), kind="stable")]


def _ordered(index: Index, final: np.ndarray, options: RetrievalOptions, asked: AskedKind | None, stage: int
             ) -> np.ndarray:
    """Stage ``stage``'s order: :func:`_ranked` without repeated texts, then (``asked``) its first candidates
    reordered by the question's asked kind -- after the repeats are left out, as a sharded driver sees them."""
    order = _deduped(index, _ranked(index, final, options))
    if asked is None:
        return order
    sentences = index.sentences
    return asked.raised(order, final, lambda head: [resolved_pair(sentences[r]) for r in head], stage)


def _deduped(index: Index, order: np.ndarray) -> np.ndarray:
    """``order`` without repeated texts (:func:`first_of_each_text`) when :data:`DEDUPE_TEXTS`."""
    return first_of_each_text(index, order) if DEDUPE_TEXTS else order


def first_of_each_text(index: Index, order: np.ndarray) -> np.ndarray:
    """``order`` without the rows whose text repeats an earlier row's (whitespace and case aside).

    >>> from types import SimpleNamespace as S
    >>> texts = ["Exclusions.", "A rule applies.", "exclusions. ", "Yes."]
    >>> index = S(sentences=[S(original=t) for t in texts], cache=S(get=lambda key, build: build()))
    >>> first_of_each_text(index, np.array([2, 1, 0, 3])).tolist()
    [2, 1, 3]
    """
    ids, repeated = index.cache.get(TEXT_IDS, lambda: _text_ids(index))
    shared = np.flatnonzero(repeated[order])  # only rows whose text repeats can be dropped (ObliQA: 6 %)
    if not len(shared):
        return order
    _, first = np.unique(ids[order[shared]], return_index=True)
    keep = np.ones(len(order), dtype=bool)
    keep[shared] = False
    keep[shared[first]] = True
    return order[keep]


def _text_ids(index: Index) -> tuple[np.ndarray, np.ndarray]:
    """Per sentence, an id of its text (whitespace and case aside), and whether another sentence has it too."""
    ids = np.unique([text_key(s.original) for s in index.sentences], return_inverse=True)[1]
    ids = np.asarray(ids, dtype=np.int64).ravel()
    return ids, np.bincount(ids)[ids] > 1


def _graph_head(index: Index, fused_order: np.ndarray, text_order: np.ndarray) -> tuple[np.ndarray, int]:
    """The fused order's first :data:`GRAPH_HEAD_WORDS` words, then the text order, then the fused order's rest;
    and how many rows the head has.

    >>> from types import SimpleNamespace
    >>> index = SimpleNamespace(cache=SimpleNamespace(get=lambda key, build: np.array([600, 300, 200, 100, 50])))
    >>> order, head = _graph_head(index, np.array([0, 1, 2, 3]), np.array([3, 4, 0, 2]))
    >>> order.tolist(), head   # 600 + 300 words fit in 1,000, 200 do not, 100 do
    ([0, 1, 3, 4, 2], 3)
    """
    words = sentence_words(index)
    head = fused_order[budget_positions(words[fused_order], 0, GRAPH_HEAD_WORDS)]
    tail = text_order[~np.isin(text_order, head)]
    rest = fused_order[~np.isin(fused_order, head) & ~np.isin(fused_order, tail)]
    return np.r_[head, tail, rest], len(head)


def _cosine(sig: propagation.Signals) -> np.ndarray:
    """The question's plain cosine per sentence (the rescaled dense signal for signals made without it)."""
    return sig.cosine if sig.cosine is not None else sig.dense


def _per_word(index: Index, final: np.ndarray, rows: np.ndarray, options: RetrievalOptions) -> np.ndarray:
    scores = final[rows]
    if not options.budget_words or not LENGTH_EXPONENT or not len(rows):
        return scores
    words = np.maximum(sentence_words(index)[rows], 1).astype(float)
    return scores / (words / words.mean()) ** LENGTH_EXPONENT


def _explain(index: Index, cg: ContextGraph, r: Ranking, sig: propagation.Signals, layers: list[np.ndarray],
             row: int, incoming: propagation.Incoming | None = None) -> dict:
    """Why a sentence scored: its own signals, its score before and after propagation, its strongest senders (a
    shard's among its own nodes and those other shards hold, in the order one process gives them)."""
    neighbours = []
    for name, bits, amount in _senders(index, cg, r, sig, layers, row, incoming)[:REPORTED_NEIGHBOURS]:
        neighbours.append({"node": name, "kinds": cg.kind_names(bits), "message": round(amount, 4)})
    out = {"lexical": round(float(sig.sparse[row]), 4), "dense": round(float(sig.dense[row]), 4),
           "graph": round(float(sig.graph[row]), 4), "own": round(float(layers[0][row]), 4),
           "propagated": round(float(layers[-1][row] - layers[0][row]), 4), "neighbours": neighbours}
    if sig.focus is not None:  # the question's names weighed its own score (kgcore.query.names)
        out["names"] = round(float(sig.focus[row]), 4)
    return out


def _senders(index: Index, cg: ContextGraph, r: Ranking, sig: propagation.Signals, layers: list[np.ndarray],
             row: int, incoming: propagation.Incoming | None) -> list[tuple[str, int, float]]:
    """The nodes that sent ``row`` a message in the last layer, strongest first: (name, kind bits, amount)."""
    if len(layers) < 2:
        return []
    senders = propagation.contributions(r.edges, sig, layers[-2], row, norm=r.norm)
    kinds = cg.row_kinds(row) if senders else {}
    out = [(node_name(index, cg, node), kinds.get(node, 0), amount, node) for node, amount in senders]
    if incoming is not None and r.boundary is not None:
        b = r.boundary
        lo, hi = b.kinds.indptr[row], b.kinds.indptr[row + 1]
        bits = dict(zip(b.kinds.indices[lo:hi].tolist(), b.kinds.data[lo:hi].tolist()))
        out = [(name, k, amount, int(b.own[node])) for name, k, amount, node in out]
        out += [(b.names[g], bits.get(g, 0), amount, int(b.ids[g]))
                for g, amount in incoming.senders(row, len(layers) - 2, float(r.norm[row]))]
        out.sort(key=lambda s: (-s[2], s[3]))  # as one process orders them: by amount, then by node
    return [(name, k, amount) for name, k, amount, _ in out]


def node_name(index: Index, cg: ContextGraph, node: int) -> str:
    """A contextual-graph node as a reader sees it: a sentence id, or ``chunk:<first sentence id>``."""
    if node < cg.n_sentences:
        return index.sentences[node].id
    lo, _ = cg.chunk_spans[node - cg.n_sentences]
    return f"chunk:{index.sentences[lo].id}"
