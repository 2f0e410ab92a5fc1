"""PropBank-style frames from spaCy's dependency parse: the ``srl`` parser.

The paper finds predicates with spaCy and labels their arguments with a T5
SRL model.  This module reads the arguments off the dependency tree
instead, so graphs build on a CPU in seconds.  :func:`extract_frames` does
the reading, :func:`kgcore.index.parse.srl.graph.frames_to_graph` turns frames into a
sentence graph and :class:`SrlParser` runs both over a document.

Predicates are verbs, and ``be``/``have``/``do`` when they head a clause
(auxiliaries in "was put", "had forgotten" are not).  The label is the
lemma with its particle and negation ("hang up", "not forget").  Roles (the
word tables named here live in :mod:`kgcore.index.parse.srl.tokens`):

=============  ================================================================
ARG0           subject of an active verb; the ``by`` phrase of a passive
ARG1           object; passive subject; subject of a copula or of a verb in
               :data:`UNACCUSATIVE_VERBS`; ``ccomp``/``xcomp`` clause; the
               ``at``/``for``/``after`` object of :data:`PREP_OBJECT_VERBS`
ARG2           indirect object; ``to`` phrase of :data:`TO_RECIPIENT_VERBS`;
               destination of :data:`PLACEMENT_VERBS`; attribute of a copula;
               ``for`` beneficiary and any other prepositional object while free
ARG3           ``from`` source; further prepositional objects once ARG2 is taken
ARGM-TMP       temporal nouns (:data:`TEMPORAL_NOUNS`), ``during``/``until``/
               ``after``... phrases, ``when``/``after``... clauses
ARGM-LOC       :data:`LOCATIVE_PREPS` phrases, ``home``
ARGM-GOL       ``to`` phrase of other verbs ("went to the baker's")
ARGM-DIR       ``towards`` phrase
ARGM-MNR       ``by`` phrase of an active verb; ``how``
ARGM-CAU/PRP   ``because`` clause, ``why``; ``to``-infinitive of purpose
ARGM-ADV       other adverbial clauses
=============  ================================================================

Subjects are shared by conjoined verbs, passed to open complements
("intended to pop" -> pop ARG0 = intender) and adverbial participles;
relative pronouns stand for the noun they modify.  Entity labels are the
head noun lemma with its compounds ("fir tree"), full names for proper
nouns ("Mr. McGregor"), and the ``of`` object behind partitive heads
("a dose of tea" -> ``tea``).  Possessed nouns keep their own key and link
to the possessor: "Peter's mother" is ``mother`` --poss--> ``Peter``.
Pronouns left unresolved by coreference stay in the frames with an empty
key and produce no node.

>>> from kgcore.core.nlp import load_spacy                       # doctest: +SKIP
>>> [f.predicate for f in extract_frames(load_spacy()("He had not forgotten."))]  # doctest: +SKIP
['not forget']
"""

from __future__ import annotations

from collections.abc import Sequence

from kgcore.core.nlp import DEFAULT_SPACY_MODEL, load_spacy
from kgcore.core.types import Argument, Frame, Sentence, SentenceGraph
from kgcore.index.bounds import SERIAL, Parallel
from kgcore.index.parallel import pipe_mapped
from kgcore.index.parse.base import QUERY_ID, Progress
from kgcore.index.parse.srl.clause import Clause
from kgcore.index.parse.srl.graph import MENTION, frames_to_graph
from kgcore.index.parse.srl.tokens import (
    is_predicate,
)


def extract_frames(sent_span) -> list[Frame]:
    """One :class:`Frame` per predicate of ``sent_span`` (a spaCy Span or Doc).

    Character offsets are relative to the start of ``sent_span``.
    """
    base, text = getattr(sent_span, "start_char", 0), sent_span.text
    return [Clause(v, base, text).frame() for v in sent_span if is_predicate(v)]


def entity_frame(sent_span, covered: Sequence[tuple[int, int]] = ()) -> Frame | None:
    """An entity-only frame (empty predicate) for the noun chunks outside ``covered``, or None.

    Used for verbless sentences and for mentions no predicate claimed (a
    misparsed "into the tool-shed"), so no entity of a sentence is lost.
    ``covered`` holds (start, end) character ranges relative to the span.
    """
    if not len(sent_span):
        return None
    base = getattr(sent_span, "start_char", 0)
    clause = Clause(sent_span[0], base, sent_span.text)
    args: list[Argument] = []
    for chunk in getattr(sent_span, "noun_chunks", ()):
        start, end = chunk.start_char - base, chunk.end_char - base
        if chunk.root.dep_ != "conj" and not any(s < end and start < e for s, e in covered):
            args += clause.nominal(MENTION, chunk.root)
    return Frame("", "", tuple(a for a in args if a.key)) if any(a.key for a in args) else None


def frames_of(sent_span) -> list[Frame]:
    """Frames of ``sent_span``, plus an entity-only frame for mentions no predicate claimed."""
    frames = extract_frames(sent_span)
    covered = [(a.start, a.end) for f in frames for a in f.arguments] + [(f.start, f.end) for f in frames]
    leftover = entity_frame(sent_span, covered)
    return frames + [leftover] if leftover else frames


def _frames_and_text(doc) -> tuple[list[Frame], str]:
    return frames_of(doc), doc.text


class SrlParser:
    """The ``srl`` parser backend (:class:`kgcore.index.parse.Parser`)."""

    name = "srl"
    #: Components the frames never read; dropping NER saves about a fifth of spaCy's time.
    DISABLED_PIPES = ("ner",)

    def __init__(self, spacy_model: str = DEFAULT_SPACY_MODEL, batch_size: int = 256, parallel: Parallel = SERIAL):
        self.spacy_model = spacy_model
        self.batch_size = batch_size
        #: Worker processes spaCy may use, for documents long enough (:class:`~kgcore.index.bounds.Parallel`).
        self.parallel = parallel

    @property
    def nlp(self):
        return load_spacy(self.spacy_model)

    def _disabled(self) -> list[str]:
        return [p for p in self.DISABLED_PIPES if p in self.nlp.pipe_names]

    def parse(self, sentences: Sequence[Sentence], progress: Progress | None = None) -> list[SentenceGraph]:
        texts = [s.resolved or s.normalized or s.original for s in sentences]
        read = pipe_mapped(self.nlp, texts, self._disabled(), _frames_and_text,  # batches of bounded words
                           self.parallel.processes_for(len(texts)), self.batch_size, self.parallel.timeout_s)
        graphs = []
        for sentence, (frames, text) in zip(sentences, read):
            graphs.append(frames_to_graph(sentence.id, frames, text, keep_unknown=False))
            if progress is not None and (len(graphs) % self.batch_size == 0 or len(graphs) == len(texts)):
                progress(len(graphs), len(texts))
        return graphs

    def parse_question(self, question: str) -> SentenceGraph:
        return frames_to_graph(QUERY_ID, self.frames_for_text(question), question.strip())

    def frames_for_text(self, text: str) -> list[Frame]:
        """Frames of ``text`` (one sentence or question), for display and query graphs."""
        text = text.strip()
        if not text:
            return []
        return frames_of(self.nlp(text, disable=self._disabled()))
