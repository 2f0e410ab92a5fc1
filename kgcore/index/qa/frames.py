"""The ``frames`` QA backend: wh-questions from the stored SRL frames, offline and without a model.

Every frame of a sentence (the coreference-resolved text the parser saw) yields, for each of its core
arguments and its place, time, manner and reason adjuncts, one question whose answer is that argument's
span.  Arguments of one role joined by "and"/"," form one answer ("lettuces and radishes").

=============================  ===========================  ===========================================
answer                         question                     example
=============================  ===========================  ===========================================
subject (ARG0, passive ARG1)   Who/What + verb + the rest   Who lost one shoe among the cabbages?
object (ARG1/ARG2/ARG3)        What/Whom + aux + subject    What did Peter lose among the cabbages?
  with a preposition           ... stranded preposition     Who was the father put in a pie by?
  a to-clause                  ... to do / to be            What did Peter wait to do?
ARGM-LOC / GOL / DIR           Where + aux + subject ...    Where did Peter lose one shoe?
  that names a time            When ...                     When did Crusoe go on board?
ARGM-TMP                       When ...                     When did Mrs. Rabbit give Peter a dose of tea?
ARGM-MNR                       How ...                      How did Peter run?
ARGM-CAU / PRP                 Why ...                      Why did Peter squeeze under the gate?
verb + objects (with an        What did X do + adjunct      What did Peter do one morning?
  adjunct to anchor it)
=============================  ===========================  ===========================================

A place phrase that names a time (:func:`is_temporal`: a time noun, a month or a year) is asked with "When".
"Who" is chosen for persons: a title (Mr., Mrs., Captain), a person noun (father, sailor, savage) or a proper
name that acts (ARG0) more often than it is a place (the object of a where-phrase).  Auxiliaries come from the
verb as written ("had forgotten" -> "had ... forgotten"; :mod:`kgcore.index.qa.verb_forms`, which also makes a
"Who" / "What" subject's verb agree: "Who has ...?"); a verb without one takes do-support with the
predicate's lemma, but a "to be" frame asks "What is X?" ("found X to be Y"; the verb it completes asks "...
tend to be?"), and "there" or "then" stays out of the "where" or "when" question it would answer.  Frames whose
subject is an unresolved pronoun, entity-only frames and non-retrievable sentences (headings, title pages) give
nothing; every pair then passes :func:`kgcore.index.qa.base.pair_problem`.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from kgcore.core.qa_pair import QAPair
from kgcore.core.types import RETRIEVABLE, Argument, Frame, Sentence
from kgcore.index.parse.srl import frames_of
from kgcore.index.parse.srl.tokens import PERSON_NOUNS, TEMPORAL_NOUNS
from kgcore.index.qa.base import is_number, is_pronoun, pair_problem, unglued, unique_pairs
from kgcore.index.qa.verb_forms import (
    inverted,
    is_finite,
    is_plural,
    singular_complement,
    singular_verb,
    spelled_verb,
    split_verb,
)

CORE = ("ARG0", "ARG1", "ARG2", "ARG3", "ARG4")
ADJUNCTS = {"ARGM-LOC": "where", "ARGM-GOL": "where", "ARGM-DIR": "where", "ARGM-TMP": "when",
            "ARGM-MNR": "how", "ARGM-CAU": "why", "ARGM-PRP": "why"}
WH_TYPES = {"where": "place", "when": "time", "how": "manner", "why": "reason"}
MONTHS = frozenset("january february march april may june july august september october november december".split())
_YEAR = re.compile(r"^1[0-9]{3}$|^20[0-9]{2}$")
#: Adjuncts that anchor a "What did X do ...?" question.
ANCHORS = ("ARGM-TMP", "ARGM-CAU", "ARGM-PRP", "ARGM-LOC")
PREPOSITIONS = frozenset(
    "about after against along among amongst around at before behind below beneath beside between by down for "
    "from in inside into like near of off on onto out outside over round through to toward towards under "
    "underneath up upon with within without".split()
)
#: A prepositional ARG2-4 with one of these is asked with "where" ("put in a pie" -> Where ... put?).
LOCATIVE_PREPS = frozenset("among amongst at behind beneath beside in inside into near on onto over under underneath "
                           "upon within".split())
TITLES = frozenset("mr mrs miss ms dr captain capt sir lady lord king queen prince princess master madam".split())
#: Words capitalised only because they open the sentence; a span starting the sentence with one is lower-cased when
#: it is moved inside a question ("Who climbed every night the tower?", "What did the fishermen do ...?").
FUNCTION_WORDS = PREPOSITIONS | frozenset(
    """a an the this that these those his her its their our my your every each some any no all both either neither
    one two three several many much more most other another such when while then there here once after before
    during until since as if though although because so yet but and or nor not soon later now also even still
    again perhaps suddenly finally""".split())
#: "What did X do?" is not asked of these (their frames are states or speech).
NO_ACTION = frozenset("be have say think know seem".split())
TO_VERBS = frozenset("give send show tell offer hand bring lend sell pay teach promise".split())
_JOINER = re.compile(r"^\s*(?:,|,?\s*and|,?\s*or)\s*$")
MAX_ANCHOR_WORDS = 8
#: Adverbs that stand for the place or time a "where" / "when" question asks: left out of its question ("Where
#: were his faculties roused there?").
PRO_ADVERBS = {"where": frozenset(("there", "here", "thither", "hither")), "when": frozenset(("then", "now"))}


@dataclass(frozen=True)
class Slot:
    """One answerable argument: an argument or coordinated arguments of one role, as one span."""

    role: str
    text: str
    start: int
    end: int
    args: tuple[Argument, ...]

    @property
    def keys(self) -> list[str]:
        return [a.key for a in self.args if a.key]

    @property
    def unresolved(self) -> bool:
        return any(is_pronoun(a.text) for a in self.args)

    @property
    def clausal(self) -> bool:
        return all(not a.key and not is_pronoun(a.text) for a in self.args)


class FrameQAGenerator:
    """The ``frames`` backend (:class:`kgcore.index.qa.base.QAGenerator`)."""

    name = "frames"

    def generate(self, sentences: Sequence[Sentence], analyses: dict[str, dict]) -> list[QAPair]:
        parsed = [(s, analyses[s.id]) for s in sentences if s.role in RETRIEVABLE and s.id in analyses]
        framed = [(s, a.get("sentence") or s.resolved, [Frame.from_dict(f) for f in a.get("frames", ())])
                  for s, a in parsed]
        kinds = entity_kinds(f for _, _, frames in framed for f in frames)
        surnames = surnames_of(kinds)
        pairs: list[QAPair] = []
        for sentence, text, frames in framed:
            found = [p for f in frames for p in frame_pairs(f, text, sentence.id, kinds, surnames)]
            for n, pair in enumerate(unique_pairs(found)):
                pair.id = f"{sentence.id}#q{n}"
                pairs.append(pair)
        return pairs


def entity_kinds(frames: Iterable[Frame]) -> dict[str, str]:
    """``person`` or ``place`` per proper-name key, by how the document uses it (acts vs. is a where-phrase)."""
    acts: Counter[str] = Counter()
    places: Counter[str] = Counter()
    for frame in frames:
        for a in frame.arguments:
            if not a.key or not a.label[:1].isupper():
                continue
            if a.role == "ARG0" or (a.role == "ARG1" and frame.predicate in ("say", "be")):
                acts[a.key] += 1
            elif a.role in ("ARGM-LOC", "ARGM-GOL", "ARGM-DIR", "ARG3"):
                places[a.key] += 1
    return {k: "person" if acts[k] >= places[k] else "place" for k in set(acts) | set(places)}


def surnames_of(kinds: dict[str, str]) -> frozenset[str]:
    """The last word of every name in ``kinds`` (:func:`entity_kinds`): "musgrove" for "charles musgrove"."""
    return frozenset(key.split()[-1] for key in kinds)


def is_person(slot: Slot, kinds: dict[str, str]) -> bool:
    """Whether the slot names a person (see the module docstring)."""
    for a in slot.args:
        first, head = a.label.split()[0].lower().rstrip("."), a.label.split()[-1].lower()
        if first in TITLES or head in PERSON_NOUNS or (a.label[:1].isupper() and kinds.get(a.key) == "person"):
            return True
    return False


def slots(frame: Frame, text: str) -> list[Slot]:
    """The frame's answerable arguments (core roles and :data:`ADJUNCTS`), coordinated ones joined, in order."""
    args = sorted((a for a in frame.arguments if (a.role in CORE or a.role in ADJUNCTS or a.role == "ARGM-ADV")
                   and 0 <= a.start < a.end <= len(text)), key=lambda a: a.start)
    out: list[Slot] = []
    for a in args:
        last = out[-1] if out else None
        if last and last.role == a.role and last.end <= a.start and _JOINER.match(text[last.end:a.start]):
            out[-1] = Slot(a.role, _inside(text[last.start:a.end], last.start, text), last.start, a.end,
                           last.args + (a,))
        elif not any(s.start <= a.start and a.end <= s.end for s in out):
            out.append(Slot(a.role, _inside(a.text, a.start, text), a.start, a.end, (a,)))
    return out


def _inside(span: str, start: int, text: str) -> str:
    """``span`` as it reads inside a sentence: lower-cased when it opens ``text`` with a :data:`FUNCTION_WORDS` word
    (capitalised only because it starts the sentence); names and "I" are kept.

    >>> _inside("During the storm", 0, "During the storm she rescued them.")
    'during the storm'
    >>> _inside("Marta Vell", 0, "Marta Vell kept the lighthouse."), _inside("The fee", 9, "He paid. The fee rose.")
    ('Marta Vell', 'The fee')
    """
    opening = len(text) - len(text.lstrip(" \"'“‘(["))
    first = span.split(" ", 1)[0]
    if start > opening or first.lower() not in FUNCTION_WORDS or not first[1:].islower() and len(first) > 1:
        return span
    return span[:1].lower() + span[1:]


def frame_pairs(frame: Frame, text: str, sid: str, kinds: dict[str, str],
                surnames: frozenset[str] | None = None) -> list[QAPair]:
    """The pairs of one frame of the sentence ``text`` (the one the parser saw) with id ``sid``; ``surnames``: the
    last words of ``kinds``' names (:func:`surnames_of`), given when one document's frames share them."""
    if not frame.predicate or not frame.text:
        return []
    found = slots(frame, text)
    subject = _subject(found, frame)
    if subject is not None and subject.unresolved:
        return []
    others = [s for s in found if s is not subject]
    if any(s.unresolved and s.role in CORE for s in others):
        return []
    others = [s for s in others if not s.unresolved]
    context = _Context(frame, text, sid, kinds, surnames_of(kinds) if surnames is None else surnames, subject,
                       others)
    pairs = [context.subject_pair()] + [context.object_pair(s) for s in others] + [context.action_pair()]
    return [p for p in pairs if p is not None]


def _subject(found: list[Slot], frame: Frame) -> Slot | None:
    before = [s for s in found if s.role in ("ARG0", "ARG1") and s.end <= frame.start]
    for role in ("ARG0", "ARG1"):
        candidates = [s for s in before if s.role == role]
        if candidates:
            return candidates[-1]
    return None


@dataclass
class _Context:
    frame: Frame
    text: str
    sid: str
    kinds: dict[str, str]
    #: The document's surnames, for a family's plural ("the Musgroves"; :func:`surnames_of`).
    surnames: frozenset[str]
    subject: Slot | None
    others: list[Slot]

    def _pair(self, question: str, answer: Slot | str, wh: str, answer_type: str, role: str,
              asked: list[Slot], answered: Slot | None = None, verb: str = "") -> QAPair | None:
        question = unglued(_sentence_case(" ".join(question.split())).rstrip(" ,;:")) + "?"
        answer_text = answer if isinstance(answer, str) else answer.text
        answer_text = unglued(answer_text.strip(" ,;:"))
        if pair_problem(question, answer_text, verb or self.frame.text):
            return None
        if answer_type == "thing" and is_number(answer_text.split()[0]):
            answer_type = "number"
        answered = answered or (answer if isinstance(answer, Slot) else None)
        in_answer = self._entities([answered]) if answered else []
        return QAPair("", question, answer_text, self.sid, wh, answer_type, role, self.frame.predicate,
                      self.statement(), self._entities(asked), in_answer)

    def _entities(self, slots_: list[Slot]) -> list[tuple[str, str]]:
        inside = [a for a in self.frame.arguments if a.key and any(s.start <= a.start and a.end <= s.end
                                                                     for s in slots_)]
        return list(dict.fromkeys((a.key, a.label) for a in inside))

    def _rest(self, skip: Slot | None = None) -> list[Slot]:
        """The other slots of a question, an adjunct fronted before the verb moved after the rest ("Who rescued two
        fishermen during the storm?")."""
        rest = [s for s in self.others if s is not skip and not (s.clausal and len(s.text.split()) > MAX_ANCHOR_WORDS)
                and s.role != "ARGM-ADV"]
        return sorted(rest, key=lambda s: (s.role not in CORE and s.start < self.frame.start, s.start))

    @property
    def plural(self) -> bool:
        """Whether the subject takes a plural verb: "I", "you", "we", "they"; by its words (:func:`is_plural`); or a
        common noun written in a plural form its lemma lacks ("Reviews", lemma "review", capitalised only because it
        opens the sentence)."""
        if self.subject is not None and self.subject.text.lower() in ("i", "you", "we", "they"):
            return True
        return self.subject is not None and (is_plural(self.subject.text, self.surnames) or any(
            a.label.islower() and any(w != a.label and w.startswith(a.label) and w.endswith("s")
                                      for w in a.text.lower().split()) for a in self.subject.args))

    @property
    def reduced_passive(self) -> bool:
        """Whether the frame reads as a participle without its "be" -- one word, its subject the thing acted on
        (ARG1) and its agent a "by" phrase ("5,000 fake reviews *generated by* GPT-2"; the form itself is not
        checked): asked in the passive, not as "Whom did 5,000 fake reviews generate by?"."""
        return (len(self.frame.text.split()) == 1 and self.subject is not None and self.subject.role == "ARG1"
                and any(s.role == "ARG0" and s.text.lower().startswith("by ") for s in self.others))

    def statement(self) -> str:
        """The frame as a clause: subject, verb, the other arguments in order."""
        parts = ([self.subject.text] if self.subject else []) + [self.frame.text] + [s.text for s in self._rest()]
        return _sentence_case(" ".join(" ".join(parts).split())) + "."

    def subject_pair(self) -> QAPair | None:
        s = self.subject
        if s is None or not is_finite(self.frame.text) or s.clausal:
            return None
        wh = "who" if is_person(s, self.kinds) else "what"
        rest = self._rest()
        complement = rest[0].text if rest and self.frame.predicate == "be" else ""  # the parser may call it a place
        written = spelled_verb(self.frame.text)  # "'s getting": "is getting"
        verb = singular_verb(written) if singular_complement(complement) else written
        verb = f"was {verb}" if self.reduced_passive else verb  # "What was generated by GPT-2?"
        return self._pair(f"{wh} {verb} {' '.join(r.text for r in rest)}", s, wh,
                          "person" if wh == "who" else "thing", s.role, rest, verb=verb)

    def object_pair(self, slot: Slot) -> QAPair | None:
        if self.subject is None:
            return None
        aux, main = inverted(*split_verb(self.frame), self.plural)
        if self.reduced_passive:  # "What were 5,000 fake reviews generated by?"
            aux, main = ("were" if self.plural else "was"), self.frame.text
        if self.frame.predicate == "be" and self.frame.text.lower() == "to be":  # "found X to be Y": "What is X?"
            before = self.text[:max(self.frame.start, 0)].lower().split()[-3:]
            if any(w in ("not", "never", "no") or w.endswith("n't") for w in before):
                return None  # "never seemed to be happy" says no "What is Marianne?"
            aux, main = ("are" if self.plural else "is"), ""
        wh, answer, strand, answer_type = self._ask(slot)
        if not wh:
            return None
        rest = [r for r in self._rest(slot) if not (wh in PRO_ADVERBS and r.text.lower() in PRO_ADVERBS[wh])]
        tail = " ".join(r.text for r in rest)
        question = f"{wh} {aux} {self.subject.text} {main} {tail} {strand}"
        if slot.clausal and wh in ("when", "where") and len(slot.text.split()) > MAX_ANCHOR_WORDS:
            return None
        return self._pair(question, answer, wh, answer_type, slot.role, [self.subject] + rest, slot)

    def _ask(self, slot: Slot) -> tuple[str, Slot | str, str, str]:
        """(wh-word, answer, stranded preposition, answer type) for a non-subject slot ('' when not asked)."""
        if slot.role in ADJUNCTS:
            wh = ADJUNCTS[slot.role]
            if wh == "where" and is_temporal(slot.text):
                wh = "when"
            return wh, slot, "", WH_TYPES[wh]
        if slot.role not in CORE or (slot.clausal and slot.role != "ARG1"):
            return "", slot, "", ""
        if self.frame.predicate == "be" and slot.role == "ARG2":
            return "what", slot, "", "thing"
        first, _, rest = slot.text.partition(" ")
        if first.lower() in LOCATIVE_PREPS and slot.role != "ARG1" and not is_person(slot, self.kinds):
            return ("when", slot, "", "time") if is_temporal(slot.text) else ("where", slot, "", "place")
        if first.lower() in PREPOSITIONS and rest and not slot.clausal:
            wh = "whom" if is_person(slot, self.kinds) else "what"
            return wh, rest, first.lower(), "person" if wh == "whom" else "thing"
        if is_person(slot, self.kinds):
            strand = "to" if slot.role == "ARG2" and self.frame.predicate in TO_VERBS else ""
            return "whom", slot, strand, "person"
        if slot.clausal and first.lower() == "to" and rest:  # "waited to open the gate": "... wait to do?"
            return "what", slot, "to be" if rest.split()[0].lower() == "be" else "to do", "action"
        return "what", slot, "", "action" if slot.clausal else "thing"

    def action_pair(self) -> QAPair | None:
        anchors = [s for s in self.others if s.role in ANCHORS and len(s.text.split()) <= MAX_ANCHOR_WORDS]
        if self.subject is None or not anchors or self.frame.negated or self.frame.predicate in NO_ACTION \
                or self.reduced_passive:  # "Clifford, imprisoned by the Judge" did nothing himself
            return None  # a negated frame ("never ate lettuces") did nothing to ask about
        aux, main = inverted(*split_verb(self.frame), self.plural)
        objects = [s for s in self.others if s.role in CORE and s.start > self.frame.start]
        if aux not in ("did", "do", "does") or not objects:
            return None
        answer = " ".join([self.frame.text] + [s.text for s in objects])
        question = f"what {aux} {self.subject.text} do {' '.join(a.text for a in anchors)}"
        pair = self._pair(question, answer, "what", "action", "V", [self.subject] + anchors)
        if pair is not None:
            pair.answer_entities = self._entities(objects)
        return pair


def is_temporal(phrase: str) -> bool:
    """Whether a prepositional phrase the parser took for a place names a time: a time noun, a month or a year.

    >>> [is_temporal(p) for p in ("on the first of September", "in a quarter of an hour", "in 1632", "at Hull")]
    [True, True, True, False]
    """
    words = [w.strip(".,;:'\"").lower() for w in phrase.split()[1:]]
    return any(w in TEMPORAL_NOUNS or w.rstrip("s") in TEMPORAL_NOUNS or w in MONTHS or _YEAR.match(w)
               for w in words)


def _sentence_case(text: str) -> str:
    return text[:1].upper() + text[1:] if text else text


def frame_analyses(sentences: Sequence[Sentence], stored: Mapping[str, dict], nlp) -> dict[str, dict]:
    """The SRL frames of each sentence: ``stored`` ones (the analyses written at indexing), else parsed here with
    ``nlp`` from its resolved text (an AMR-parsed index, a context without stored analyses)."""
    found = {s.id: stored[s.id] for s in sentences if "frames" in stored.get(s.id, {})}
    missing = [s for s in sentences if s.id not in found]
    for sentence, doc in zip(missing, nlp.pipe([s.resolved for s in missing])):
        found[sentence.id] = {"sentence": doc.text, "frames": [f.to_dict() for f in frames_of(doc)]}
    return found
