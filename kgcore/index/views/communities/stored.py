"""A collection's communities and their summaries: built once, stored in the linked folder, reused by queries.

:func:`communities` returns the :class:`CommunityIndex` of a loaded collection: read from
``linked-<generation>/communities.npz`` (the JSON description and the summary vectors in one file, replaced
atomically) when it was stored for this generation
with the same parameters, else built (:func:`build`) and stored there, as :mod:`kgcore.index.views.contextual`
stores the contextual graph.  Like that file it is derived data: missing, stale or unreadable means rebuilt.

**Incremental.**  When the collection changed (a document added or removed: a new generation), the
communities are detected again on the new graph, and the summaries of the stored build closest in time (this
generation's file with other parameters, else the newest earlier ``linked-*`` folder still on disk; the
writer keeps the previous generation) are reused for every community whose member set *and* grounding
sentences are unchanged (its :func:`~.summaries.signature`); only the others are summarised.
:attr:`BuildStats.reused` counts them.

Summary vectors: an extractive summary's vector is the normalised mean of its sentences' index vectors (the
same MiniLM space, so no model call); an abstractive report's text is encoded by the index's embedder.
"""

from __future__ import annotations

import functools
import json
import re
import time
import zipfile
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from kgcore.core.atomic import replace_file
from kgcore.core.chat import ChatClient
from kgcore.core.embed import Embedder
from kgcore.core.settings import Settings
from kgcore.index.store.disk import CacheKey, Index
from kgcore.index.store.recovery import linked_folder
from kgcore.index.views.communities import signals
from kgcore.index.views.communities import summaries as sm
from kgcore.index.views.communities.detect import Community, Hierarchy, detect
from kgcore.index.views.communities.graph import EntityGraph, entity_graph

STORED = "communities.npz"
#: Bumped whenever the build changes, so older stored communities are rebuilt (and not reused).
VERSION = 2
#: How much more a proper name (one node across documents) counts than a common noun when titling a community.
NAME_BOOST = 3.0
#: Grounding sentences of a community ranked before MMR picks its summary.
CANDIDATES = 200


@dataclass(frozen=True)
class Params:
    """What a build depends on besides the collection (``llm``: the report model, "" for extractive)."""

    algorithm: str = "leiden"
    max_cluster_size: int = 10
    seed: int = 42
    llm: str = ""

    @classmethod
    def of(cls, settings: Settings) -> Params:
        llm = settings.openai_model if settings.community_llm and settings.openai_configured else ""
        return cls(settings.community_algorithm, settings.community_max_size, settings.community_seed, llm)


@dataclass(frozen=True)
class BuildStats:
    """What a build did: graph size, seconds per step, summaries computed and reused, reports that fell back."""

    entities: int = 0
    links: int = 0
    detect_s: float = 0.0
    summary_s: float = 0.0
    computed: int = 0
    reused: int = 0
    llm: int = 0
    fallback: int = 0


@dataclass(frozen=True)
class CommunityIndex:
    """Communities (every level), one summary per community in the same order, and the summaries' vectors."""

    hierarchy: Hierarchy
    summaries: tuple[sm.Summary, ...]
    vectors: np.ndarray
    params: Params
    stats: BuildStats

    def summary(self, community_id: str) -> sm.Summary:
        return self.summaries[self._row()[community_id]]

    def community(self, community_id: str) -> Community:
        return self.hierarchy.communities[self._row()[community_id]]

    def _row(self) -> dict[str, int]:
        return self._rows

    @functools.cached_property
    def _rows(self) -> dict[str, int]:
        return {c.id: i for i, c in enumerate(self.hierarchy.communities)}

    def size_distribution(self) -> dict[str, float]:
        """Count, and min / median / p95 / max members, of the finest communities."""
        sizes = np.array([len(c.members) for c in self.hierarchy.leaves()] or [0])
        return {"leaves": int(len(self.hierarchy.leaves())), "min": int(sizes.min()), "median": float(np.median(sizes)),
                "p95": float(np.percentile(sizes, 95)), "max": int(sizes.max()),
                "over_max": int((sizes > self.params.max_cluster_size).sum())}


def _key(params: Params) -> CacheKey[CommunityIndex]:
    return CacheKey(f"communities:{params.algorithm}:{params.max_cluster_size}:{params.seed}:{params.llm}")


def communities(index: Index, embedder: Embedder, settings: Settings | None = None) -> CommunityIndex:
    """The collection's communities and summaries (see the module docstring), computed on first use."""
    settings = settings or Settings.from_env()
    params = Params.of(settings)
    return index.cache.get(_key(params), lambda: _stored(index, params, embedder, settings))


def _stored(index: Index, params: Params, embedder: Embedder, settings: Settings) -> CommunityIndex:
    folder = index.path / linked_folder(index.manifest.generation) if index.manifest.format > 1 else None
    previous = None
    if folder is not None:
        found = read(folder, index.manifest.stamp, params)
        if found is not None:
            return found
        previous = _previous(index.path, folder, params)
    client = None
    if params.llm:
        client = ChatClient(settings, task="Community report")
    built = build(index, params, embedder, previous, client)
    if folder is not None:
        write(built, folder, index.manifest.stamp)
    return built


def _previous(root: Path, folder: Path, params: Params) -> CommunityIndex | None:
    """The stored build to reuse summaries from: this folder's (other parameters), else the newest earlier one."""
    def generation(p: Path) -> int:
        m = re.fullmatch(r"linked-(\d+)", p.name)
        return int(m.group(1)) if m else -1

    candidates = [folder] + sorted((p for p in root.glob("linked-*") if p != folder), key=generation, reverse=True)
    for f in candidates:
        found = read(f, None, None)
        if found is not None:
            return found
    return None


def build(index: Index, params: Params, embedder: Embedder, previous: CommunityIndex | None = None,
          client: sm.Completer | None = None) -> CommunityIndex:
    """Detect the communities of ``index`` and summarise each (reusing ``previous``'s where unchanged)."""
    start = time.perf_counter()
    eg = entity_graph(index.graph, len(index.sentences))
    hierarchy = detect(eg, params.algorithm, params.max_cluster_size, params.seed)
    detect_s = time.perf_counter() - start
    start = time.perf_counter()
    # a report is reused only from the same model; an extractive summary from any build
    same_kind = previous is not None and (not params.llm or previous.params.llm == params.llm)
    old = {s.signature: (s, previous.vectors[i]) for i, s in enumerate(previous.summaries)} \
        if previous is not None and same_kind else {}
    summarizer = _Summarizer(index, eg)
    out, vectors = [], []
    counts = {"computed": 0, "reused": 0, "llm": 0, "fallback": 0}
    for community in hierarchy.communities:
        ex, ranked = summarizer.extractive(community)
        reuse = old.get(ex.signature)
        if reuse is not None and (reuse[0].kind == sm.LLM) == bool(params.llm):
            out.append(_renamed(reuse[0], community.id))
            vectors.append(reuse[1])
            counts["reused"] += 1
            continue
        summary = ex
        if client is not None:
            summary = sm.abstractive(ex, ranked, summarizer.allowed(community), client)
            counts["llm" if summary.kind == sm.LLM else "fallback"] += 1
        out.append(summary)
        vectors.append(summarizer.vector(summary, embedder))
        counts["computed"] += 1
    matrix = np.vstack(vectors).astype(np.float32) if vectors else np.zeros((0, index.sentence_vectors.shape[1]),
                                                                           dtype=np.float32)
    stats = BuildStats(len(eg.nodes), len(eg.pairs), round(detect_s, 3), round(time.perf_counter() - start, 3),
                       **counts)
    return CommunityIndex(hierarchy, tuple(out), matrix, params, stats)


def _renamed(summary: sm.Summary, community_id: str) -> sm.Summary:
    d = summary.to_dict()
    d["community"] = community_id
    return sm.Summary.from_dict(d)


class _Summarizer:
    """Extractive summaries of one index's communities (the matrices built once)."""

    def __init__(self, index: Index, eg: EntityGraph):
        self.index = index
        self.adjacency = eg.adjacency()
        self.eg_row = {node: i for i, node in enumerate(eg.nodes)}
        self.grounding = index.grounding
        scope = index.sentence_scope(())
        self.allowed_rows = np.ones(len(index.sentences), dtype=bool) if scope is None else scope
        self.words = np.array([len(s.original.split()) for s in index.sentences])
        self.main = signals.main_rows(index)

    def _rows(self, community: Community) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(member rows in the index, their centrality, the community's grounding rows)."""
        eg_rows = [self.eg_row[m] for m in community.members]
        centrality = np.asarray(self.adjacency[eg_rows][:, eg_rows].sum(axis=1)).ravel() + 1e-6
        node_rows = np.array([self.index.node_row[m] for m in community.members], dtype=np.int64)
        grounded = np.unique(self.grounding[node_rows].indices)
        return node_rows, centrality, grounded[self.allowed_rows[grounded]]

    def allowed(self, community: Community) -> set[str]:
        return {self.index.sentences[r].id for r in self._rows(community)[2]}

    def extractive(self, community: Community) -> tuple[sm.Summary, list[tuple[str, str]]]:
        """The extractive summary and the best-ranked grounding sentences (id, text) for a report prompt."""
        node_rows, centrality, grounded = self._rows(community)
        sentences = self.index.sentences
        # names (ids without a document prefix, kgcore.core.graph) before common nouns of the same centrality
        named = np.array([1.0 if "/" in m else NAME_BOOST for m in community.members])
        order = np.argsort(-centrality * named, kind="stable")
        labels = [self.index.graph.nodes[community.members[i]].label for i in order]
        sig = sm.signature(community.members, [sentences[r].id for r in grounded])
        docs = tuple(dict.fromkeys(sentences[r].doc_id for r in grounded))
        weights = self.grounding[node_rows][:, grounded].T.multiply(centrality).tocsr()
        score = np.asarray(weights.sum(axis=1)).ravel()
        top = np.argsort(-score, kind="stable")[:CANDIDATES]
        rows = grounded[top]
        picked = sm.mmr_select(weights[top].toarray(), self.index.sentence_vectors[rows], self.words[rows])
        chosen = sorted(rows[picked].tolist())
        claims = tuple(sm.Claim(sentences[r].original, (sentences[r].id,)) for r in chosen)
        main = grounded[self.main[grounded]]
        summary = sm.Summary(community.id, sm.title_of(labels), claims, sm.EXTRACTIVE, tuple(labels[:20]), docs,
                             len(grounded), sig, main_sentences=len(main),
                             topicality=signals.topicality(self.index, node_rows, main))
        ranked = [(sentences[r].id, sentences[r].original) for r in rows[: sm.PROMPT_SENTENCES]]
        return summary, ranked

    def vector(self, summary: sm.Summary, embedder: Embedder) -> np.ndarray:
        if summary.kind == sm.LLM:
            return embedder.encode([f"{summary.title}. {summary.text}"])[0]
        rows = [self.index.sentence_row(s) for s in summary.sentence_ids]
        if not rows:
            return np.zeros(self.index.sentence_vectors.shape[1], dtype=np.float32)
        mean = self.index.sentence_vectors[rows].mean(axis=0)
        return (mean / max(float(np.linalg.norm(mean)), 1e-12)).astype(np.float32)


def write(ci: CommunityIndex, folder: Path, stamp: str) -> None:
    """Store ``ci`` in ``folder`` atomically (a temporary file renamed); a folder that cannot be written is left."""
    data = {"version": VERSION, "stamp": stamp, "params": asdict(ci.params), "stats": asdict(ci.stats),
            "algorithm": ci.hierarchy.algorithm, "seed": ci.hierarchy.seed,
            "max_cluster_size": ci.hierarchy.max_cluster_size, "modularity": list(ci.hierarchy.modularity),
            "communities": [asdict(c) for c in ci.hierarchy.communities],
            "summaries": [s.to_dict() for s in ci.summaries]}
    meta = np.frombuffer(json.dumps(data).encode("utf-8"), dtype=np.uint8)
    replace_file(folder / STORED, lambda fh: np.savez(fh, meta=meta, vectors=ci.vectors), quiet=True)


def read(folder: Path, stamp: str | None, params: Params | None) -> CommunityIndex | None:
    """The build stored in ``folder`` (for ``stamp`` and ``params`` unless None); None when missing or stale."""
    try:
        with np.load(folder / STORED, allow_pickle=False) as arrays:
            data = json.loads(arrays["meta"].tobytes().decode("utf-8"))
            if data.get("version") != VERSION or (stamp is not None and data.get("stamp") != stamp):
                return None
            stored = Params(**data["params"])
            if params is not None and stored != params:
                return None
            vectors = arrays["vectors"]
        communities = tuple(Community(c["id"], c["level"], c["parent"], tuple(c["members"]), tuple(c["children"]))
                            for c in data["communities"])
        summaries = tuple(sm.Summary.from_dict(s) for s in data["summaries"])
        if len(vectors) != len(summaries) or len(summaries) != len(communities):
            return None
        hierarchy = Hierarchy(data["algorithm"], data["seed"], data["max_cluster_size"], communities,
                              tuple(data["modularity"]))
        return CommunityIndex(hierarchy, summaries, vectors, stored, BuildStats(**data["stats"]))
    except (OSError, ValueError, KeyError, TypeError, zipfile.BadZipFile):
        return None
