"""Indexing one document on its own into a shard: the stages in order, with timings and progress.

    load (sentences) -> coref (+ narrator, speakers) -> parse -> graph -> embed -> qa (question–answer pairs, embedded)

``progress(stage, done, total)`` is called as stages advance, so the CLI can
draw a bar and the app a progress widget.  Linking the shard into its
collection is :mod:`kgcore.index.pipeline`'s job.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime

from kgcore.core.document import Document, Narrator
from kgcore.core.embed import Embedder, embed_texts_of, embedder_for, embedding_model_name, node_embedder
from kgcore.core.embed.base import encode_progress
from kgcore.core.errors import KgcoreError
from kgcore.core.graph import GroundedGraph
from kgcore.core.limits import Deadline
from kgcore.core.nlp import load_spacy
from kgcore.core.settings import IndexOptions, Settings
from kgcore.core.types import PARSED, RETRIEVABLE, Sentence
from kgcore.core.version import __version__
from kgcore.index.bounds import Parallel, cap_analysis
from kgcore.index.coref import CorefResolver, get_resolver
from kgcore.index.graph import build_graph
from kgcore.index.load import READER_VERSION
from kgcore.index.narrator import narrator_for, resolve_narrator
from kgcore.index.parse import Parser, get_parser
from kgcore.index.qa import generate_pairs, qa_generators
from kgcore.index.sentences import split_sentences
from kgcore.index.speakers import resolve_speakers
from kgcore.index.store.manifest import Counts, Manifest, Models
from kgcore.index.store.qa_table import embed_pairs
from kgcore.index.store.shard import DocumentShard

STAGES = ("load", "coref", "parse", "graph", "embed", "qa", "store")
StageProgress = Callable[[str, int, int], None]


@dataclass
class StageTimer:
    """Times each stage and reports its start and end to ``progress``; with a ``deadline`` (the document's
    ``max_document_seconds``), every report first checks that time is left."""

    progress: StageProgress | None
    seconds: dict[str, float] = field(default_factory=dict)
    deadline: Deadline | None = None

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        self.report(name, 0, 1)
        start = time.perf_counter()
        yield
        self.seconds[name] = round(time.perf_counter() - start, 3)
        self.report(name, 1, 1)

    def share(self, stage: str, start: int, size: int, total: int) -> Callable[[int, int], None]:
        """A ``(done, of)`` callback for one part of ``stage``: the part is ``size`` of the stage's ``total``
        units and starts after ``start`` of them (the embed stage encodes node texts, then sentences).

        >>> seen = []
        >>> StageTimer(lambda *r: seen.append(r)).share("embed", 100, 50, 150)(10, 20); seen
        [('embed', 125, 150)]
        """
        return lambda done, of: self.report(stage, start + size * done // max(of, 1), total)

    def report(self, stage: str, done: int, total: int) -> None:
        if self.deadline is not None:
            self.deadline.check()
        if self.progress:
            self.progress(stage, done, total)


def build_shard(document: Document, options: IndexOptions, settings: Settings, timer: StageTimer,
                parser: Parser | None = None, source: bytes | None = None,
                resolver: CorefResolver | None = None) -> DocumentShard:
    """Index ``document`` on its own: sentences, coreference, parse, graph, basic node and sentence vectors.

    ``parser`` overrides the backend named by ``options.parser`` (for instance a
    :class:`kgcore.index.parse.amr.PenmanParser` over pre-parsed graphs); its ``name``
    must equal ``options.parser`` so the manifest stays truthful.  ``source`` (the
    file's bytes) is kept with the shard for the source view and re-indexing.  ``resolver`` is the
    ``options.coref`` backend already loaded (a worker that builds many documents keeps its models).
    """
    started = time.perf_counter() - sum(timer.seconds.values())
    sentences, narrator = _sentences(document, options, settings, timer, resolver)
    graph, analyses = _graph(sentences, options, settings, timer, parser)
    with timer.stage("embed"):  # node texts, then sentences, each reporting its batches
        embedder = embedder_for(settings)
        node_ids = list(graph.nodes)
        rows = len(node_ids) + len(sentences)
        with encode_progress(timer.share("embed", 0, len(node_ids), rows)):
            base = embed_texts_of([(graph.nodes[i].label, graph.nodes[i].texts) for i in node_ids],
                                  node_embedder(settings), options.alpha)
        with encode_progress(timer.share("embed", len(node_ids), len(sentences), rows)):
            sentence_vectors = embedder.encode([s.normalized for s in sentences])
    with timer.stage("qa"):  # generation and embedding of the pairs: the time QA pairs add to indexing
        qa = embed_pairs(generate_pairs(sentences, dict(analyses), qa_generators(settings)), embedder) \
            if settings.qa_pairs or settings.qa_llm else None
    manifest = _manifest(document, options, settings, embedder, sentences, graph, narrator, timer.seconds,
                         round(time.perf_counter() - started, 3))
    return DocumentShard(manifest, document.paragraphs, sentences, graph, node_ids, base, sentence_vectors,
                         analyses, document.source_name, source, document.references, qa)


def _sentences(document: Document, options: IndexOptions, settings: Settings, timer: StageTimer,
               resolver: CorefResolver | None = None) -> tuple[list[Sentence], Narrator | None]:
    """The load (sentence splitting) and coref stages (coreference, the narrator, the speakers of quotations):
    resolved sentences and the narrator found, if any."""
    with timer.stage("load"):
        sentences = split_sentences(document, load_spacy(settings.spacy_model), settings.chunk_tokens,
                                    settings.max_sentence_words, Parallel.of(settings))
    if not sentences:
        raise KgcoreError(f"{document.name}: no sentences found after cleaning")
    settings.check_limit(document.source_name or document.name, "max_sentences", len(sentences))
    with timer.stage("coref"):
        # Prose only: a heading ("CHAPTER XVI -- ...") is no antecedent of the next chapter's "he".
        parsed = [s for s in sentences if s.role in RETRIEVABLE]
        resolver = resolver or get_resolver(options.coref, settings)
        resolved, narrator = _resolve_narrator(resolver.resolve(parsed), options)
        if options.coref != "none":
            resolved = resolve_speakers(resolved, narrator.name if narrator else "")[0]
        by_id = {s.id: s for s in resolved}
        return [by_id.get(s.id, s) for s in sentences], narrator


def _graph(sentences: list[Sentence], options: IndexOptions, settings: Settings, timer: StageTimer,
           parser: Parser | None) -> tuple[GroundedGraph, list[tuple[str, dict]]]:
    """The parse and graph stages: the grounded graph and what the parser saw per sentence."""
    with timer.stage("parse"):
        parser = parser or get_parser(options.parser, settings)
        if parser.name != options.parser:
            raise KgcoreError(f"parser {parser.name!r} given for an index declared as {options.parser!r}")
        parsed = [s for s in sentences if s.role in PARSED]  # tables, equations, references stay text only
        sentence_graphs = parser.parse(parsed, progress=lambda d, t: timer.report("parse", d, t))
    with timer.stage("graph"):
        graph = build_graph(sentence_graphs, sentences[0].doc_id if sentences else "",
                            lambda done, total: timer.report("graph", done, total))
        problems = graph.invariant_problems(s.id for s in parsed)
        if problems:
            raise KgcoreError(f"internal error: graph grounding invariant violated: {problems[:3]}")
    return graph, [(sg.sentence_id, cap_analysis(sg.analysis, settings.max_parse_chars)) for sg in sentence_graphs]


def _resolve_narrator(sentences: list[Sentence], options: IndexOptions) -> tuple[list[Sentence], Narrator | None]:
    """The narrator pass of the coref stage; ``auto`` only runs together with a coreference backend."""
    if options.narrator == "auto" and options.coref == "none":
        return sentences, None
    narrator = narrator_for(sentences, options.narrator)
    if narrator is None:
        return sentences, None
    return resolve_narrator(sentences, narrator)


def model_fingerprint(settings: Settings, embedder: Embedder | None = None) -> Models:
    """What the index depends on besides its options (checked on reuse and at query time)."""
    return Models(
        spacy=settings.spacy_model,
        embedding=embedder.name if embedder else embedding_model_name(settings.embedding_model),
        embedding_dim=embedder.dim if embedder else 0,
    )


def _manifest(document: Document, options: IndexOptions, settings: Settings, embedder: Embedder,
              sentences: list[Sentence], graph: GroundedGraph, narrator: Narrator | None,
              timings: dict[str, float], seconds: float) -> Manifest:
    node_types = [n.node_type for n in graph.nodes.values()]
    return Manifest(
        kgcore_version=__version__,
        doc_id=document.name,
        source_file=document.source_name or document.name,
        source_sha256=document.source_sha256,
        created_at=datetime.now(UTC).isoformat(timespec="seconds"),
        options=options,
        models=model_fingerprint(settings, embedder),
        counts=Counts(
            sentences=len(sentences),
            chunks=len({s.chunk for s in sentences}),
            words=sum(len(s.original.split()) for s in sentences),
            nodes=len(graph.nodes),
            entities=node_types.count("entity"),
            actions=node_types.count("action"),
            edges=len(graph.edges),
        ),
        narrator=narrator,
        ingest=replace(document.report, reader=READER_VERSION, sentences=dict(Counter(s.role for s in sentences)),
                       citations_resolved=sum(1 for s in sentences if s.citations)),
        timings_s=dict(timings),
        seconds=seconds,
    )
