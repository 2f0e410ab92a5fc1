"""One predicate's arguments read off the dependency tree (the roles table is in :mod:`kgcore.index.parse.srl.parser`).

:class:`Clause` collects the arguments of one verb: subjects (shared by
conjoined verbs, passed to open complements), objects, prepositional
phrases with their roles, clausal complements and adverbial clauses, and
re-attaches ``to``/``by`` phrases the parser hung on the object.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from kgcore.core.types import Argument, Frame
from kgcore.index.parse.srl.tokens import (
    CLAUSE_MARK_ROLES,
    LOCATIVE_PREPS,
    PLACEMENT_VERBS,
    PREP_OBJECT_VERBS,
    PRO_FORMS,
    TEMPORAL_NOUNS,
    TEMPORAL_PREPS,
    TO_RECIPIENT_VERBS,
    UNACCUSATIVE_VERBS,
    WH_ADVERB_ROLES,
    entity_label,
    is_interjection,
    is_passive,
    is_predicate,
    later_conjuncts,
    particle_adverbs,
    partitive_concept,
    predicate_label,
    relative_antecedents,
    subjects,
)

if TYPE_CHECKING:  # the annotation only; spaCy loads when a document is parsed
    from spacy.tokens import Token

_CLAUSE_DEPS = ("relcl", "acl", "advcl", "ccomp", "xcomp")
_DROPPED_CHILD_DEPS = ("conj", "cc", "appos", "case", "preconj")


@dataclass
class Clause:
    """The argument collection for one predicate."""

    verb: Token
    base: int
    text: str
    args: list[Argument] = field(default_factory=list)
    excluded: set[int] = field(default_factory=set)
    lifted: dict[int, str] = field(default_factory=dict)

    def has(self, role: str) -> bool:
        return any(a.role == role for a in self.args)

    def frame(self) -> Frame:
        v = self.verb
        label, text, negated = predicate_label(v)
        self.excluded = {p.i for p in particle_adverbs(v)}
        self.lifted = _misattached_preps(v)
        self.excluded |= {t.i for p in self.lifted for t in v.doc[p].subtree}
        self._core()
        for child in v.children:
            self._adjunct(child)
        for prep_i, role in self.lifted.items():
            self._prep(v.doc[prep_i], forced=role)
        args = _dedupe(self.args)
        return Frame(label, text, args, negated, v.idx - self.base, v.idx + len(v) - self.base)

    def _core(self) -> None:
        v = self.verb
        copular = v.lemma_.lower() in UNACCUSATIVE_VERBS or any(
            c.dep_ in ("acomp", "attr") for c in v.children
        )
        existential = any(c.dep_ == "expl" for c in v.children)
        subject_role = "ARG1" if is_passive(v) or copular else "ARG0"
        found = list(subjects(v))
        moved = _fronted_objects(v, found)
        for s in found:
            self.args += self.nominal("ARG1" if s in moved else subject_role, s)
        # a fronted wh-word the parser calls "dative" ("What did she give him?") is an object
        fronted = [c for c in v.children if c.dep_ == "dative" and c.i < v.i and c.tag_.startswith("W")]
        objects = [c for c in v.children if c.dep_ == "dobj"] + fronted
        # "asked her the way", "what did she give him": of two objects the first after the verb is the recipient
        after = [o for o in objects if o.i > v.i]
        recipient = after[0].i if len(objects) > 1 and after else -1
        for obj in objects:
            role = "ARG2" if obj.i == recipient else "ARG1"
            self.args += self.nominal("ARGM-LOC" if obj.lemma_.lower() == "home" else role, obj)
        for c in v.children:
            if c.dep_ == "dative" and c not in fronted:
                self._dative(c)
            elif c.dep_ == "attr":
                self.args += self.nominal("ARG1" if existential else "ARG2", c)
            elif c.dep_ in ("acomp", "oprd") or (c.dep_ == "xcomp" and c.pos_ == "ADJ"):
                self.args += self.nominal("ARG2", c)
            elif c.dep_ == "agent":
                self._prep(c, forced="ARG0")

    def _dative(self, token) -> None:
        if token.pos_ == "ADP":
            self._prep(token, forced="ARG2")
        else:
            self.args += self.nominal("ARG2", token)

    def _adjunct(self, c) -> None:
        dep = c.dep_
        if dep == "prep" and c.i not in self.lifted:
            for prep in (c, *later_conjuncts(c)):
                self._prep(prep)
        elif dep in ("npadvmod", "advmod"):
            self._adverbial(c)
        elif dep in ("ccomp", "xcomp", "advcl") and is_predicate(c) and not _across_semicolon(c, self.verb):
            role = _advcl_role(c) if dep == "advcl" else "ARG2" if self.has("ARG1") else "ARG1"
            self.args.append(self.clause(role, c))

    def _adverbial(self, c) -> None:
        lower, lemma = c.lower_, c.lemma_.lower()
        if lower in WH_ADVERB_ROLES:
            self._wh_adverb(c)
        elif lemma == "home":
            self.args += self.nominal("ARGM-LOC", c)
        elif lemma in TEMPORAL_NOUNS:
            self.args += self.nominal("ARGM-TMP", c)
        elif lower in PRO_FORMS and c.dep_ == "advmod":
            self.args += self.nominal("ARGM-LOC", c)
        elif c.dep_ == "npadvmod" and c.left_edge.i > 0 and c.doc[c.left_edge.i - 1].lower_ in LOCATIVE_PREPS:
            self.args += self.nominal("ARGM-LOC", c)  # "came round the end of a frame"

    def _wh_adverb(self, c) -> None:
        role = WH_ADVERB_ROLES[c.lower_]
        antecedents = relative_antecedents(c)
        if antecedents:
            for a in antecedents:
                self.args += self.nominal(role, a, resolve=False)
        elif self.verb.dep_ != "advcl":  # in an adverbial clause "when" is a conjunction, not a question
            self.args.append(self._argument(role, c, c, c.lower_, ""))

    def _prep(self, prep, forced: str | None = None) -> None:
        objects = [c for c in prep.children if c.dep_ == "pobj"]
        clauses = [c for c in prep.children if c.dep_ == "pcomp" and is_predicate(c)]
        for clause_head in clauses:
            role = "ARGM-TMP" if prep.lower_ in TEMPORAL_PREPS else "ARGM-ADV"
            self.args.append(self.clause(role, clause_head, start=prep))
        for obj in objects:
            role = forced or self._pp_role(prep.lower_, partitive_concept(obj))
            args = self.nominal(role, obj)
            if args and args[0].start >= 0 and not relative_antecedents(obj):
                head = args[0]
                start = prep.idx - self.base
                text = self._text(start, head.end)
                args[0] = Argument(head.role, text, head.label, head.key, start, head.end)
            self.args += args

    def _pp_role(self, prep: str, concept) -> str:
        verb = self.verb.lemma_.lower()
        if concept.lemma_.lower() in TEMPORAL_NOUNS:
            return "ARGM-TMP"
        # "ran after Peter" is a chase, "after dinner" a time
        if prep in TEMPORAL_PREPS and not (prep in ("after", "before") and concept.pos_ in ("PROPN", "PRON")):
            return "ARGM-TMP"
        if (verb, prep) in PREP_OBJECT_VERBS and not self.has("ARG1"):
            return "ARG1"
        if prep == "to":
            return "ARG2" if verb in TO_RECIPIENT_VERBS or verb in PLACEMENT_VERBS else "ARGM-GOL"
        if prep in LOCATIVE_PREPS:
            return "ARG2" if verb in PLACEMENT_VERBS and not self.has("ARG2") else "ARGM-LOC"
        if prep in ("towards", "toward"):
            return "ARGM-DIR"
        if prep == "by":
            return "ARGM-MNR"
        if prep == "from" or self.has("ARG2"):
            return "ARG3"
        return "ARG2"

    def nominal(self, role: str, token, resolve: bool = True) -> list[Argument]:
        """Arguments for ``token`` and its conjuncts, plus entities nested inside them."""
        out: list[Argument] = []
        for tok in (token, *later_conjuncts(token)):
            antecedents = relative_antecedents(tok) if resolve else []
            if antecedents:
                out += [a for ante in antecedents for a in self.nominal(role, ante, resolve=False)]
                continue
            concept = partitive_concept(tok)
            label, key = entity_label(concept)
            out.append(self._argument(role, tok, concept, label, key))
            if key:
                out += self._nested(concept, 0)
        return out

    def _nested(self, concept, depth: int) -> list[Argument]:
        out: list[Argument] = []
        for child in concept.children:
            if child.i in self.excluded or depth > 2:
                continue
            if child.dep_ == "poss":
                pairs = [(child, "poss")]
            elif child.dep_ == "prep":
                pairs = [(g, child.lower_) for g in child.children if g.dep_ == "pobj"]
            else:
                continue
            for obj, relation in pairs:
                for tok in (obj, *later_conjuncts(obj)):
                    inner = partitive_concept(tok)
                    label, key = entity_label(inner)
                    if key:
                        out.append(self._argument(relation, tok, inner, label, key))
                        out += self._nested(inner, depth + 1)
        return out

    def _argument(self, role, token, concept, label, key) -> Argument:
        first, last = _mention_bounds(token, self.excluded)
        doc = token.doc
        start = doc[first].idx - self.base
        end = doc[last].idx + len(doc[last]) - self.base
        return Argument(role, self._text(start, end), label, key, start, end)

    def clause(self, role: str, head, start=None) -> Argument:
        """A clause argument: text = the clause, label = its predicate, key = ""."""
        doc = head.doc
        tokens = list(doc[(start or head.left_edge).i : head.right_edge.i + 1])
        while len(tokens) > 1 and tokens[-1].is_punct:
            tokens.pop()
        begin = tokens[0].idx - self.base
        end = tokens[-1].idx + len(tokens[-1]) - self.base
        return Argument(role, self._text(begin, end), predicate_label(head)[0], "", begin, end)

    def _text(self, start: int, end: int) -> str:
        return self.text[start:end]


def _across_semicolon(clause_head, verb) -> bool:
    """True when a ``;`` or ``:`` separates the clause from the verb (a misparsed second sentence)."""
    if clause_head.i < verb.i:
        between = verb.doc[clause_head.right_edge.i + 1 : verb.i]
    else:
        between = verb.doc[verb.i + 1 : clause_head.left_edge.i]
    return any(t.text in (";", ":") for t in between)


def _advcl_role(head) -> str:
    for c in head.children:
        if c.dep_ in ("mark", "advmod") and c.lower_ in CLAUSE_MARK_ROLES and c.i < head.i:
            return CLAUSE_MARK_ROLES[c.lower_]
    if any(c.dep_ == "aux" and c.tag_ == "TO" for c in head.children):
        return "ARGM-PRP"
    return "ARGM-ADV"


def _mention_bounds(token, excluded: set[int]) -> tuple[int, int]:
    """Token range of the mention headed by ``token``, without clauses, conjuncts and lifted phrases."""
    lo, hi = token.left_edge.i, token.right_edge.i
    if lo == hi:
        return lo, hi
    dropped = set(excluded)
    for child in token.children:
        if child.dep_ in _DROPPED_CHILD_DEPS and child.tag_ != "HYPH":
            dropped.update(range(child.left_edge.i, child.right_edge.i + 1))
    doc = token.doc
    for t in doc[lo : hi + 1]:
        if t.dep_ in _CLAUSE_DEPS and t.i != token.i:
            dropped.update(range(t.left_edge.i, t.right_edge.i + 1))
    first = last = token.i
    while first > lo and first - 1 not in dropped:
        first -= 1
    while last < hi and last + 1 not in dropped:
        last += 1
    while first < token.i and (doc[first].is_punct or is_interjection(doc[first])):
        first += 1
    while last > token.i and doc[last].is_punct:
        last -= 1
    return first, last


def _misattached_preps(verb) -> dict[int, str]:
    """Final ``to``/``by`` phrases that the parser hung on the verb's object, re-attached to the verb.

    spaCy often reads "gave a dose of tea to Peter" with ``to Peter`` under
    ``tea`` and "was put in a pie by Mrs. McGregor" with ``by`` under ``pie``.
    """
    wanted = {}
    if is_passive(verb) and not any(c.dep_ == "agent" for c in verb.children):
        wanted["by"] = "ARG0"
    lemma = verb.lemma_.lower()
    if (lemma in TO_RECIPIENT_VERBS or lemma in PLACEMENT_VERBS) and not any(
        c.dep_ == "dative" or (c.dep_ == "prep" and c.lower_ == "to") for c in verb.children
    ):
        wanted["to"] = "ARG2"
    lifted: dict[int, str] = {}
    for child in verb.children:
        if child.dep_ not in ("dobj", "prep") or not wanted:
            continue
        for tok in child.subtree:
            if (
                tok.dep_ == "prep" and tok.lower_ in wanted and tok.head.i != verb.i
                and tok.right_edge.i == child.right_edge.i and _nominal_path(tok, verb)
            ):
                lifted[tok.i] = wanted.pop(tok.lower_)
                break
    return lifted


def _nominal_path(token, verb) -> bool:
    node = token.head
    while node.i != verb.i:
        if node.dep_ not in ("prep", "pobj", "dobj", "conj") or node.head.i == node.i:
            return False
        node = node.head
    return True


def _fronted_objects(verb, found: list) -> list:
    """Of a verb's ``found`` subjects, those standing before an inverted "do" while another follows it: the small
    parser calls "storage" in "How much storage do block headers need?" a second subject, but "block headers"
    need it -- it is the object.

    >>> from kgcore.core.nlp import load_spacy
    >>> doc = load_spacy()("How much storage do block headers need per year?")
    >>> [t.text for t in _fronted_objects(doc[6], list(subjects(doc[6])))]
    ['storage']
    """
    inverted = next((c.i for c in verb.children if c.dep_ == "aux" and c.lemma_.lower() == "do" and c.i < verb.i),
                    None)
    if inverted is None:
        return []
    return [s for s in found if s.i < inverted and any(inverted < o.i < verb.i for o in found)]


def _dedupe(args: list[Argument]) -> tuple[Argument, ...]:
    seen, out = set(), []
    for a in sorted(args, key=lambda a: (a.start, -(a.end - a.start))):
        if (a.role, a.start, a.end, a.key) not in seen:
            seen.add((a.role, a.start, a.end, a.key))
            out.append(a)
    return tuple(out)
