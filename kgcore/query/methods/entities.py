"""Entity-centred retrieval, method ``entities`` (the cross-document entity graph's vector-search-aided retrieval,
Suryawanshi et al. 2025).

1. **Keywords**: the question's named entities, noun chunks (determiners and question words dropped) and runs
   of proper nouns (spaCy, as :mod:`kgcore.query.qakg.question` reads questions).
2. **Entities**: each entity of the collection (:func:`kgcore.index.views.entities.entity_groups`) scores the best of
   the cosine of its vector to the question or to a keyword (its description vector,
   :mod:`kgcore.index.views.entities.describe`, else the mean of its nodes' vectors) and the fuzzy match of a keyword
   to one of its names (rapidfuzz Levenshtein within :func:`~kgcore.query.qakg.question.max_edits`).  The
   ``k`` best entities with grounding in scope are selected.
3. **Neighbourhood** (depth 2 on the grounded graph): a selected entity's own grounding (its nodes, the role
   edges to its actions and those actions: one sentence each); the sentences of its typed relations
   (:func:`kgcore.index.views.entities.relations.entity_relations`: "X uses Y", "X outperforms Y", citations,
   co-authors ...), reached for the entity at their other end; then through its actions the entities on their
   other roles, whose grounding counts when specific (at most :data:`MAX_NEIGHBOUR_GROUNDING` sentences).
   Under a word or sentence budget, entities beyond the ``k`` best are taken while their grounding holds less
   than :data:`POOL_FACTOR` times the budget (at most :data:`MAX_ENTITIES`).
4. **Sentences**: the candidates are every grounding sentence in scope plus, under a budget, the sentences
   closest to the question that fill :data:`DENSE_POOL` times it ("vector-search-aided": a question
   whose entities the collection names differently still reaches its sentences).  Each scores its cosine to the
   question plus :data:`W_ENTITY` x :func:`entity_term` of the sum, over the entities that reached it, of the
   entity's score x its specificity (:func:`kgcore.core.graph.specificity` of its grounding: a name in every
   sentence says little about which) x :data:`DECAY` of the depth it was reached at; a sentence joining several
   chosen entities ranks higher, but many weak entities cannot outrank the question itself.
   The ranking is cut by the budget every method uses.  ``selected_by`` names the entities that reached each
   sentence, ``query_nodes`` the keywords (or ``question``) that chose them, and ``aligned`` each entity's
   keyword, depth, typed relation and contribution (shown as "keyword -> entity" in the app); a sentence only
   the question's vector reached has no ``selected_by`` and ``question`` as its query node.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from rapidfuzz import process
from rapidfuzz.distance import Levenshtein

from kgcore.core.embed import Embedder
from kgcore.core.graph import specificity
from kgcore.core.settings import RetrievalOptions, Settings
from kgcore.core.timing import Timer
from kgcore.core.types import Match, QueryResult, SelectedSentence
from kgcore.index.store.disk import Index
from kgcore.query.context import budget_positions, selected_sentence, sentence_words
from kgcore.query.entities_table import EntityTable, entity_table
from kgcore.query.methods.base import RANKED, Method, Models
from kgcore.query.qakg.question import max_edits, plain

#: Weight of the entity that reached a sentence against the sentence's own cosine to the question.
W_ENTITY = 0.5
#: Under a budget, the sentences closest to the question that fill this many times the budget join the entity- reached
#: ones as candidates (0: entity-reached sentences only, a pure graph traversal).  Chosen with :data:`SQUASH`
#: among four variants on 160 ObliQA dev questions disjoint from the reported sample
#: (bench/experiments/entities_retrieval_bench.py ``obliqa-variants``): recall at 500/1,000/2,000 words
#: 0.179/0.225/0.349 (entity pool, raw term), 0.429/0.463/0.523 (squashed), 0.188/0.241/0.356 (dense pool, raw),
#: 0.492/0.528/0.602 (dense pool, squashed).
DENSE_POOL = 3
#: Whether the entity contributions are squashed (:func:`entity_term`) or added as they are.
SQUASH = True
#: Decay of an entity's score by the depth a sentence was reached at (0: its own grounding, 1: a typed relation's
#: sentences, 2: the grounding of an entity sharing an action).
DECAY = {0: 1.0, 1: 0.75, 2: 0.5}
#: A neighbour entity grounded in more sentences than this is too common to bring its whole grounding.
MAX_NEIGHBOUR_GROUNDING = 40
#: Neighbours followed per selected entity (the best scored).
MAX_NEIGHBOURS = 10
#: Under a budget, entities are added (best first) until their grounding holds this many times the budget.
POOL_FACTOR = 3
#: Most entities one question selects under a budget.
MAX_ENTITIES = 60
#: Least score for an entity to be selected.
MIN_ENTITY_SCORE = 0.3
QUESTION = "question"
_SKIP_FIRST = frozenset("a an the this that these those what which who whom whose when where why how "
                        "my your his her its our their any some each every".split())


def question_keywords(question: str, nlp) -> list[str]:
    """The question's named entities, noun chunks (without leading determiners or question words) and runs of
    proper nouns, once each (case-insensitive), in order of appearance."""
    doc = nlp(question)
    found = []
    for span in (*doc.ents, *doc.noun_chunks):
        words = [t for t in span if not t.is_punct]
        while words and (words[0].lower_ in _SKIP_FIRST or words[0].pos_ in ("DET", "PRON")):
            words = words[1:]
        if words:
            found.append(" ".join(t.text for t in words))
    run: list[str] = []
    for token in list(doc) + [None]:
        if token is not None and token.pos_ == "PROPN":
            run.append(token.text)
        elif run:
            found.append(" ".join(run))
            run = []
    return list({k.lower(): k for k in reversed(found) if plain(k)}.values())[::-1]


def fuzzy_scores(keywords: list[str], table: EntityTable) -> tuple[np.ndarray, list[int]]:
    """Per entity, the best fuzzy-name score of any keyword (1 - edits/length within ``max_edits``) and which
    keyword gave it (-1: none)."""
    best = np.zeros(len(table.ids), dtype=np.float32)
    which = [-1] * len(table.ids)
    for k, keyword in enumerate(keywords):
        query = plain(keyword)
        if not query:
            continue
        limit = max_edits(query)
        for _, dist, pos in process.extract(query, table.name_keys, scorer=Levenshtein.distance,
                                            score_cutoff=limit, limit=50):
            name = table.name_keys[pos]
            if dist > max_edits(name):
                continue
            score = (1.0 - dist / max(len(query), len(name))) * float(table.name_weights[pos])
            row = int(table.name_rows[pos])
            if score > best[row]:
                best[row], which[row] = score, k
    return best, which


@dataclass(frozen=True)
class Chosen:
    """A selected entity: its row, score and the keyword (or ``question``) that chose it."""

    row: int
    score: float
    by: str


def choose_entities(question_vec: np.ndarray, keywords: list[str], keyword_vecs: np.ndarray, table: EntityTable,
                    allowed: np.ndarray | None, k: int) -> list[Chosen]:
    """The ``k`` best entities (with grounding in scope) by description vector and fuzzy name."""
    if not table.ids:
        return []
    queries = np.vstack([question_vec[None, :], keyword_vecs]) if len(keywords) else question_vec[None, :]
    cos = table.vectors @ queries.T
    vec_best, vec_by = cos.max(axis=1), cos.argmax(axis=1)
    fuzzy, fuzzy_by = fuzzy_scores(keywords, table)
    score = np.maximum(vec_best, fuzzy)
    if allowed is not None:
        score = np.where(allowed, score, -1.0)
    order = np.argsort(-score, kind="stable")[:k]
    out = []
    for row in order:
        if score[row] < MIN_ENTITY_SCORE:
            break
        if fuzzy[row] >= vec_best[row]:
            by = keywords[fuzzy_by[row]]
        else:
            by = QUESTION if vec_by[row] == 0 else keywords[vec_by[row] - 1]
        out.append(Chosen(int(row), float(score[row]), by))
    return out


def enough_entities(ranked: list[Chosen], table: EntityTable, words: np.ndarray,
                    options: RetrievalOptions) -> list[Chosen]:
    """The first ``k`` of ``ranked``; under a budget, more (best first) until their grounding in scope (``words``
    per sentence row, 0 outside it) holds :data:`POOL_FACTOR` times the budget, so a budget is filled by
    entity-selected sentences rather than left empty."""
    if not (options.budget_words or options.budget_sentences):
        return ranked[: options.k]
    rows: set[int] = set()
    total = 0
    out: list[Chosen] = []
    for c in ranked:
        if len(out) >= options.k and total >= POOL_FACTOR * options.budget_words \
                and len(rows) >= POOL_FACTOR * options.budget_sentences:
            break
        out.append(c)
        lo, hi = table.grounding.indptr[c.row], table.grounding.indptr[c.row + 1]
        for r in table.grounding.indices[lo:hi].tolist():
            if words[r] and r not in rows:
                rows.add(r)
                total += int(words[r])
    return out


@dataclass
class Hit:
    """How a sentence was reached: per entity that reached it, (entity row, contribution, depth, the typed
    relation it came through or "")."""

    parts: list[tuple[int, float, int, str]] = field(default_factory=list)

    @property
    def total(self) -> float:
        return sum(value for _, value, _, _ in self.parts)

    @property
    def by(self) -> list[int]:
        return [entity for entity, _, _, _ in self.parts]


def reached_sentences(table: EntityTable, chosen: list[Chosen],
                      allowed_entities: np.ndarray | None) -> tuple[dict[int, Hit], dict[int, str]]:
    """Sentence row -> :class:`Hit`, and per entity row reached the keyword (or ``question``) that chose it or
    the chosen entity it is linked to.  Depth 0: a chosen entity's grounding; 1: the sentences of its typed
    relations (reached for the entity at the other end); 2: the grounding of specific entities sharing actions."""
    reached: dict[int, Hit] = {}
    why = {c.row: c.by for c in chosen}
    sizes = np.diff(table.grounding.indptr)
    weight = np.asarray(specificity(sizes, table.grounding.shape[1]))

    def reach(entity: int, rows, value: float, depth: int, relation: str = "") -> None:
        for row in rows:
            hit = reached.setdefault(row, Hit())
            at = next((i for i, part in enumerate(hit.parts) if part[0] == entity), None)
            if at is None:
                hit.parts.append((entity, value, depth, relation))
            elif relation and not hit.parts[at][3]:  # already reached: say which typed relation also joins it
                hit.parts[at] = hit.parts[at][:3] + (relation,)

    def grounding(entity: int) -> list[int]:
        return table.grounding.indices[table.grounding.indptr[entity]:table.grounding.indptr[entity + 1]].tolist()

    for c in chosen:
        reach(c.row, grounding(c.row), float(c.score * weight[c.row] * DECAY[0]), 0)
    for c in chosen:
        for t in table.typed.get(c.row, ()):
            ok = t.other >= 0 and (allowed_entities is None or allowed_entities[t.other])
            entity = t.other if ok else c.row
            reach(entity, t.rows, float(c.score * weight[entity] * DECAY[1]), 1, t.relation_type)
            why.setdefault(entity, c.by)
    selected = {c.row for c in chosen}
    for c in chosen:
        lo, hi = table.neighbours.indptr[c.row], table.neighbours.indptr[c.row + 1]
        shared = dict(zip(table.neighbours.indices[lo:hi].tolist(), table.neighbours.data[lo:hi].tolist()))
        near = [n for n in shared if n not in selected and sizes[n] <= MAX_NEIGHBOUR_GROUNDING
                and (allowed_entities is None or allowed_entities[n])]
        for n in sorted(near, key=lambda n: (-shared[n], n))[:MAX_NEIGHBOURS]:
            reach(n, grounding(n), float(c.score * weight[n] * DECAY[2]), 2)
            why.setdefault(n, c.by)
    return reached, why


def entity_term(totals: np.ndarray) -> np.ndarray:
    """What the entities that reached a sentence add to its score: their summed contributions, squashed into
    [0, 1) so that a sentence many weak entities reach cannot outrank one the question is about.

    >>> entity_term(np.array([0.0, 1.0, 3.0])).tolist()
    [0.0, 0.5, 0.75]
    """
    return totals / (1.0 + totals)


def dense_pool(sims: np.ndarray, words: np.ndarray, options: RetrievalOptions) -> list[int]:
    """The sentence rows in scope (``words`` > 0) closest to the question (``sims``: its cosine to every sentence)
    that fill :data:`DENSE_POOL` times the budget (``k`` times it without one); none when :data:`DENSE_POOL` is 0."""
    if not DENSE_POOL:
        return []
    order = np.argsort(-np.where(words > 0, sims, -np.inf), kind="stable")
    if options.budget_words:
        filled = np.cumsum(words[order])
        count = int(np.searchsorted(filled, DENSE_POOL * options.budget_words)) + 1
    else:
        count = DENSE_POOL * (options.budget_sentences or options.k)
    return [int(r) for r in order[:count] if words[r] > 0]


def ranked_sentences(index: Index, table: EntityTable, reached: dict[int, Hit], why: dict[int, str],
                     rows: list[int], cosines: np.ndarray, options: RetrievalOptions) -> list[SelectedSentence]:
    """The reached ``rows`` ranked by question cosine (``cosines``: to every sentence) plus entity contribution,
    cut by the budget (or ``k``)."""
    sims = cosines[rows] if rows else np.zeros(0)
    totals = np.array([reached[r].total if r in reached else 0.0 for r in rows])
    scores = sims + W_ENTITY * (entity_term(totals) if SQUASH else totals) if rows else sims
    order = sorted(range(len(rows)), key=lambda i: (-scores[i], rows[i]))
    ranked = [rows[i] for i in order]
    if not options.budget_sentences and not options.budget_words:
        ranked = ranked[: options.k]
    places = budget_positions(sentence_words(index)[ranked].tolist() if ranked else [], options.budget_sentences,
                              options.budget_words)
    kept = []
    for p in places:
        hit, i = reached.get(ranked[p], Hit()), order[p]
        kept.append(selected_sentence(
            index, ranked[p], selected_by=[table.ids[e] for e in hit.by],
            query_nodes=list(dict.fromkeys(why[e] for e in hit.by if e in why)) or [QUESTION],
            retrieval_count=len(hit.by),
            similarity=round(float(sims[i]), 4), score=round(float(scores[i]), 4), rank=p + 1,
            aligned=[why_entity(table, why, part) for part in hit.parts]))
    return kept


def why_entity(table: EntityTable, why: dict[int, str], part: tuple[int, float, int, str]) -> dict:
    """One entity that reached a sentence, in the ``aligned`` shape the app shows ("keyword -> entity evidence"):
    the keyword that chose it (or the entity it is linked to), the entity, how (depth, typed relation) and its
    contribution to the score.

    >>> t = EntityTable(["rag"], ["RAG"], *([None] * 8))
    >>> why_entity(t, {0: "RAG"}, (0, 0.61, 1, "result"))["label"]
    'RAG (result)'
    """
    entity, value, depth, relation = part
    how = f" ({relation})" if relation else " (neighbour)" if depth == 2 else ""
    return {"query_node": why.get(entity, QUESTION), "node_id": table.ids[entity],
            "label": f"{table.names[entity]}{how}", "evidence": round(value, 4), "linked": [], "depth": depth,
            "relation": relation}


def retrieve_entities(index: Index, question: str, options: RetrievalOptions, embedder: Embedder, nlp,
                      settings: Settings | None = None) -> QueryResult:
    """Method ``entities`` (see the module docstring) on ``index`` within the options' documents and roles."""
    timer = Timer()
    with timer.step("parse"):
        keywords = question_keywords(question, nlp)
    with timer.step("embed"):
        table = entity_table(index, embedder, settings)
        vectors = embedder.encode([question, *keywords])
        q, keyword_vecs = vectors[0], vectors[1:]
    with timer.step("match"):
        scope = index.sentence_scope(options.documents, options.front_matter)
        allowed = None if scope is None else (table.grounding @ scope.astype(np.float32)) > 0
        budgeted = bool(options.budget_words or options.budget_sentences)
        ranked_entities = choose_entities(q, keywords, keyword_vecs, table, allowed,
                                          max(options.k, MAX_ENTITIES) if budgeted else options.k)
        words = sentence_words(index) if scope is None else np.where(scope, sentence_words(index), 0)
        chosen = enough_entities(ranked_entities, table, words, options)
        reached, why = reached_sentences(table, chosen, allowed)
        rows = [r for r in reached if scope is None or scope[r]]
        cosines = index.sentence_vectors @ q  # the question's cosine to every sentence, for the pool and the ranking
        rows += [r for r in dense_pool(cosines, words, options) if r not in reached]
    with timer.step("select"):
        kept = ranked_sentences(index, table, reached, why, rows, cosines, options)
        kept.sort(key=lambda s: s.position)
    timer.ms["retrieval"] = timer.total("parse", "embed", "match", "select")
    matches = [Match(c.by, table.ids[c.row], table.names[c.row], [table.names[c.row]], "entity",
                     round(c.score, 4), rank) for rank, c in enumerate(chosen, start=1)]
    notes = [] if chosen else ["No entity of the collection matches the question."]
    return QueryResult(question, "entities", index.collection, None, matches, kept, options.to_dict(), timer.ms, notes,
                       len(rows))


def retrieve(index: Index, question: str, options: RetrievalOptions, models: Models) -> QueryResult:
    return retrieve_entities(index, question, options, models.embedder, models.nlp, models.settings)


METHOD = Method("entities", "Entities (resolved entities and their neighbourhoods)",
                "the question's entities found among the collection's resolved entities; their sentences",
                retrieve, reads=RANKED)
