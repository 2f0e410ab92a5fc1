"""Token-level readings of a spaCy parse, and the word tables, for :mod:`kgcore.index.parse.srl`.

Everything here looks at one spaCy token and its neighbours: is it a
predicate, what is its label ("had not forgotten" -> ``not forget``), who
is its subject (inherited through conjunction and control), which noun a
relative pronoun stands for, and what an entity's label and merge key are
("some camomile tea" -> ``tea``, "Mr. McGregor" -> ``mr mcgregor``).

>>> merge_key("Mr. McGregor"), merge_key("fir  tree")
('mr mcgregor', 'fir tree')
"""

from __future__ import annotations

import functools
import re

from kgcore.core.nlp import verb_lemma
from kgcore.index.parse.srl.graph import WH_WORDS
from kgcore.index.parse.srl.values import value_label

#: Verbs whose subject undergoes rather than does the event (PropBank ARG1).
UNACCUSATIVE_VERBS = frozenset(
    """be become seem appear happen occur fall die arrive grow remain stay exist belong
    sink vanish disappear perish befall""".split()
)
#: Verbs whose ``to`` phrase is the recipient or hearer (ARG2).
TO_RECIPIENT_VERBS = frozenset(
    """give hand pass send lend sell offer show tell say explain describe mention report speak talk
    write read sing shout call cry whisper reply answer complain pay owe promise bring feed serve
    return deliver introduce present teach throw toss happen""".split()
)
#: Verbs whose destination phrase is ARG2 (put.01: "put Peter to bed").
PLACEMENT_VERBS = frozenset("put place lay set hang pop stick stuff shove thrust pour".split())
#: (verb, preposition) pairs whose object is the verb's ARG1 when it has no direct object.
PREP_OBJECT_VERBS = frozenset(
    {("look", "at"), ("look", "for"), ("look", "after"), ("wait", "for"), ("search", "for"),
     ("hunt", "for"), ("ask", "for"), ("listen", "to"), ("think", "of"), ("think", "about"),
     ("hope", "for"), ("long", "for"), ("dream", "of"), ("laugh", "at"), ("stare", "at"),
     ("run", "after"), ("go", "after"), ("care", "for"), ("belong", "to")}
)
TEMPORAL_PREPS = frozenset("after before during until till since throughout".split())
LOCATIVE_PREPS = frozenset(
    """in on at under underneath among amongst into onto through round around near behind beside
    across over along inside outside between up down beneath below above upon within beyond""".split()
)
TEMPORAL_NOUNS = frozenset(
    """morning afternoon evening night day time week month year hour minute moment while noon
    midnight dawn dusk sunset sunrise season spring summer autumn winter today tomorrow yesterday
    tonight bedtime fortnight daybreak nightfall monday tuesday wednesday thursday friday saturday
    sunday christmas""".split()
)
#: Common nouns that name someone (a story's acting animals included): a "who" question's answer, a person.
PERSON_NOUNS = frozenset(
    """man woman men women boy girl child children father mother brother sister son daughter wife husband uncle
    aunt friend people person captain sailor seaman master mate servant slave savage savages cannibal king queen
    lady gentleman merchant planter widow farmer gardener baker cook doctor priest spaniard englishman portuguese
    moor prisoner enemy companion neighbour neighbor family parent parents fellow creature rabbit bunny cat
    mouse sparrow boatswain pilot governor""".split()
)
#: Of :data:`PERSON_NOUNS`, those that name a group or any living thing, not one person.
GROUP_NOUNS = frozenset("people family creature".split())
#: Heads whose ``of`` object is the real concept ("a dose of tea" -> tea).
PARTITIVE_HEADS = frozenset(
    """dose loaf cup piece lot lots pair one some kind sort bit handful couple bunch number deal
    plenty most all many few several each none any rest part glass bowl slice spoonful type""".split()
)
#: Adverbs that form phrasal verbs with the verb right before them ("go back", "run away").
PARTICLE_ADVERBS = frozenset("back away off out up down over along about around round forward aside".split())
#: Role of an adverbial clause, by its first subordinating word.
CLAUSE_MARK_ROLES = {
    **dict.fromkeys("when whenever after before while until till since as once".split(), "ARGM-TMP"),
    "because": "ARGM-CAU",
    "so": "ARGM-PRP",
}
WH_ADVERB_ROLES = {"where": "ARGM-LOC", "when": "ARGM-TMP", "why": "ARGM-CAU", "how": "ARGM-MNR"}
FIRST_PERSON = {
    **dict.fromkeys("i me my mine myself".split(), "I"),
    **dict.fromkeys("we us our ours ourselves".split(), "we"),
}
#: Plural nouns the lemmatizer would mangle ("clothes" -> "clothe").
PLURALIA_TANTUM = frozenset("clothes trousers scissors spectacles shears goods news riches thanks".split())
#: Titles that start a name; capitalised words before them ("Old Mrs. Rabbit") are not part of it.
TITLES = frozenset("mr mrs ms miss dr sir lady lord master mister madam madame captain uncle aunt".split())
#: Place adverbs that refer back like pronouns: kept in frames, never merged into a node.
PRO_FORMS = frozenset("there here".split())
#: Words that never head an entity node, whatever the tagger says ("She" tagged PROPN).
NON_ENTITY_WORDS = WH_WORDS | PRO_FORMS | frozenset(
    """he him his himself she her hers herself it its itself they them their theirs themselves
    you your yours yourself yourselves one oneself""".split()
)
#: Interjections the tagger can take for the first word of a name ("nay Robinson Crusoe": "nay" tagged PROPN).
INTERJECTIONS = frozenset("nay yea aye ay alas oh ah lo pray hey ha".split())
_GLUE_RE = re.compile(r"[-\u2013\u2014]{2,}|[\"\u201c\u201d:;()\[\]]")
_SUBJECT_DEPS = ("nsubj", "nsubjpass", "csubj", "csubjpass")
# Nouns in these relations belong where the parser put them; others may be a list's cut-off head.
_ATTACHED_NOUN_DEPS = ("pobj", "conj", "poss", "dobj", "nsubj", "nsubjpass", "attr", "compound", "appos")


@functools.lru_cache(maxsize=1)
def stop_words() -> frozenset[str]:
    """spaCy's English stop words, imported on first use so that importing the parser loads no model stack."""
    from spacy.lang.en.stop_words import STOP_WORDS

    return frozenset(STOP_WORDS)


def merge_key(label: str) -> str:
    """Normalised node key of an entity label (lowercase, no dots, single spaces)."""
    return " ".join(label.lower().replace(".", " ").split())


def is_agentive_complement(token) -> bool:
    """A complement of "be" with a ``by`` agent: "was surprised ... by a rover" is a passive verb, whatever its tag."""
    return (token.dep_ == "acomp" and token.head.lemma_.lower() == "be"
            and any(c.dep_ == "agent" for c in token.children))


def is_predicate(token) -> bool:
    """A verb, or ``be``/``have``/``do`` heading its own clause (not the "be" of an agentive complement)."""
    if is_agentive_complement(token):
        return True
    if token.dep_ in ("aux", "auxpass", "amod", "compound"):
        return False
    if token.lemma_.lower() == "be" and any(is_agentive_complement(c) for c in token.children):
        return False
    if not clean_word(token.text):
        return False
    if token.pos_ == "VERB":
        return True
    return token.pos_ == "AUX" and token.tag_ != "MD"


def entity_label(token) -> tuple[str, str]:
    """(label, key) of the entity headed by ``token``; key is "" for pronouns and wh-words; a value keeps its full
    text (:mod:`~kgcore.index.parse.srl.values`)."""
    value = value_label(token)
    if value:
        return value, merge_key(value)
    lower = clean_word(token.lower_)
    person = FIRST_PERSON.get(lower.rstrip("."))
    if person:
        return person, person.lower()
    if token.pos_ in ("PRON", "DET") or token.tag_.startswith("W") or lower in NON_ENTITY_WORDS or not lower:
        return lower or token.lower_, ""
    if token.pos_ not in ("NOUN", "PROPN") and lower in stop_words():
        return lower, ""
    run = [t for t in _compound_run(token)[:-1] if not _junk_word(t)] + [token]
    titles = [n for n, t in enumerate(run[:-1]) if t.lower_.rstrip(".") in TITLES]
    run = run[titles[0] :] if titles else run  # "Old Mrs. Rabbit" is Mrs. Rabbit
    proper = any(t.pos_ == "PROPN" for t in run)
    head = token.text if proper else lower if lower in PLURALIA_TANTUM else token.lemma_.lower()
    words = [t.text if t.tag_ == "HYPH" else clean_word(t.text if proper else t.lower_) for t in run[:-1]]
    words.append(clean_word(head) or lower)
    label = "".join(w + t.whitespace_ for w, t in zip(words, run) if w).strip()
    return label, merge_key(label)


def _junk_word(token) -> bool:
    """A function word that the parser took for a name part ("But--" in "But-- Flopsy"); never a part of a
    hyphenated word ("so-called")."""
    if token.tag_ == "HYPH" or _hyphen_part(token):
        return False
    if is_interjection(token):
        return True
    word = clean_word(token.text)
    return not word or word.lower() in stop_words() and (token.pos_ not in ("NOUN", "PROPN") or word != token.text)


def is_interjection(token) -> bool:
    """An interjection: tagged one, or a lower-case word of :data:`INTERJECTIONS` whatever its tag ("nay" before
    "Robinson Crusoe" is tagged PROPN); it is never part of a mention."""
    return token.tag_ == "UH" or token.text in INTERJECTIONS


def clean_word(text: str) -> str:
    """The first real word of a token that raw e-texts glued to dashes and quotes.

    >>> clean_word('beard--"I'), clean_word("and--"), clean_word("sand-bank"), clean_word("--")
    ('beard', 'and', 'sand-bank', '')
    """
    for piece in _GLUE_RE.split(text):
        piece = piece.strip("-\u2013\u2014_'` ")
        if any(ch.isalpha() for ch in piece):
            return piece
    return text.strip() if any(ch.isdigit() for ch in text) else ""


def _compound_run(token) -> list:
    """``token`` with the contiguous compound words before it ("sand-bank", "Mr. McGregor"), a hyphenated word
    whole: spaCy splits "low-confidence" into "low" (an adjective), "-" and "confidence" (a compound), and without
    its first part the run "-confidence tokens" made "low-" and "high-confidence tokens" one node."""
    members, stack = {token.i}, [token]
    while stack:
        for child in stack.pop().children:
            if child.dep_ == "compound" or (child.dep_ == "punct" and child.tag_ == "HYPH"):
                members.add(child.i)
                stack.append(child)
    doc = token.doc
    for i in sorted(members):
        while i > 0 and i - 1 not in members and doc[i - 1].whitespace_ == "" and \
                (_is_hyphen(doc[i]) or _is_hyphen(doc[i - 1])):
            i -= 1
            members.add(i)
    start = token.i
    while start - 1 in members:
        start -= 1
    return list(token.doc[start : token.i + 1])


def _is_hyphen(token) -> bool:
    """A single hyphen joining two words (not a dash: "--" glues e-text words and phrases)."""
    return token.tag_ == "HYPH" and token.text in ("-", "\u2010", "\u2011")


def _hyphen_part(token) -> bool:
    """A word written against a hyphen that joins it to the next or previous word ("so" in "so-called")."""
    doc = token.doc
    before = token.i > 0 and _is_hyphen(doc[token.i - 1]) and doc[token.i - 1].whitespace_ == ""
    after = token.i + 1 < len(doc) and token.whitespace_ == "" and _is_hyphen(doc[token.i + 1])
    return before or after


def partitive_concept(token):
    """The ``of`` object behind a partitive head ("a dose of some tea" -> tea)."""
    for _ in range(3):
        if token.lower_ not in PARTITIVE_HEADS and token.lemma_.lower() not in PARTITIVE_HEADS:
            return token
        ofs = [c for c in token.children if c.dep_ == "prep" and c.lower_ == "of"]
        objects = [g for c in ofs for g in c.children if g.dep_ == "pobj"]
        if not objects:
            return token
        token = objects[0]
    return token


def relative_antecedents(token) -> list:
    """The noun(s) a relative pronoun or adverb stands for; [] if ``token`` is none."""
    if not token.tag_.startswith("W") and not (token.lower_ == "that" and token.dep_ != "mark"):
        return []
    node = token
    while node.dep_ != "relcl":
        if node.head.i == node.i:
            return []
        node = node.head
    antecedent = node.head
    conjuncts = [c for c in antecedent.conjuncts if c.i > antecedent.i]
    if conjuncts and node.i > max(c.i for c in conjuncts):
        return [antecedent, *conjuncts]
    return [antecedent]


def predicate_label(verb) -> tuple[str, str, bool]:
    """(label, surface text, negated) of ``verb``: "had not forgotten" -> ("not forget", ..., True)."""
    particles = [c for c in verb.children if c.dep_ == "prt"] + particle_adverbs(verb)
    negations = [c for c in verb.children if c.dep_ == "neg"]
    lemma, auxiliaries = verb.lemma_.lower(), [c for c in verb.children if c.dep_ in ("aux", "auxpass")]
    if is_agentive_complement(verb):  # "was not surprised by": "be", its auxiliaries and negation belong to the verb
        negations += [c for c in verb.head.children if c.dep_ == "neg"]
        auxiliaries += [verb.head] + [c for c in verb.head.children if c.dep_ == "aux"]
        lemma = verb_lemma(verb.text) if verb.pos_ == "ADJ" else lemma
    words = [clean_word(lemma) or verb.lower_]
    words += [p.lower_ for p in sorted(particles, key=lambda t: t.i)]
    if negations:
        words.insert(0, "never" if negations[0].lower_ == "never" else "not")
    group = auxiliaries + negations + particles + [verb]
    return " ".join(words), _surface(sorted(group, key=lambda t: t.i)), bool(negations)


def particle_adverbs(verb) -> list:
    """The adverb right after ``verb`` that makes it a phrasal verb ("went back" -> back)."""
    doc = verb.doc
    nxt = doc[verb.i + 1] if verb.i + 1 < len(doc) else None
    if nxt is None or nxt.lower_ not in PARTICLE_ADVERBS or nxt.dep_ != "advmod":
        return []
    return [nxt] if nxt.head.i == verb.i or nxt.head.head.i == verb.i else []


def _surface(tokens) -> str:
    """The tokens as written, joined with their own spacing ("don't go", not "do n't go")."""
    parts: list[str] = []
    for prev, tok in zip([None, *tokens], tokens):
        glue = "" if prev is not None and prev.i + 1 == tok.i and not prev.whitespace_ else " "
        parts.append((glue if parts else "") + tok.text)
    return "".join(parts)


def is_passive(verb) -> bool:
    """Passive voice, also for "was caught and put in a pie" (put shares the auxiliary)."""
    if is_agentive_complement(verb) or any(c.dep_ in ("auxpass", "nsubjpass") for c in verb.children):
        return True
    if verb.tag_ != "VBN" or any(c.dep_ == "aux" for c in verb.children):
        return False
    return verb.dep_ == "acl" or (verb.dep_ == "conj" and is_passive(verb.head))


def subjects(verb, depth: int = 0) -> list:
    """Subject tokens of ``verb``, inherited through conjunction and control."""
    own = [c for c in verb.children if c.dep_ in _SUBJECT_DEPS]
    if own or depth > 8 or verb.head.i == verb.i:
        return [t for s in own for t in (*_cut_off_list_head(s), s, *later_conjuncts(s))]
    head, dep = verb.head, verb.dep_
    if dep == "pcomp" and head.dep_ == "prep":
        head = head.head
    if dep == "acl":
        return [head]
    if is_agentive_complement(verb):
        return subjects(head, depth + 1)
    if dep == "xcomp":
        while not is_predicate(head) and head.head.i != head.i:
            head = head.head
        objects = [t for c in head.children if c.dep_ == "dobj" for t in (c, *later_conjuncts(c))]
        return objects or subjects(head, depth + 1)  # "told Peter to go": the object controls
    if dep in ("conj", "advcl", "pcomp") and is_predicate(head):
        return subjects(head, depth + 1)
    return []


def _cut_off_list_head(subject) -> list:
    """The first name of "Flopsy, Mopsy and Cotton-tail" when the parser cut it off the list."""
    start = subject.left_edge.i
    if start < 2 or not later_conjuncts(subject) or subject.doc[start - 1].text != ",":
        return []
    first = subject.doc[start - 2]
    if first.pos_ != "PROPN" or first.dep_ in _ATTACHED_NOUN_DEPS or first.left_edge.i < start - 4:
        return []
    return [first]


def later_conjuncts(token) -> list:
    """The tokens coordinated after ``token`` ("Mopsy", "Cotton-tail" after "Flopsy")."""
    return [c for c in token.conjuncts if c.i > token.i]
