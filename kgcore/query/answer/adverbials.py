"""Answer spans that are adverbials: a reason ("because ...", a purpose infinitive), a means ("by exploiting ...",
"we define X *as the average ...*"), and the test that tells an "as" clause saying how ("as he was told", "as Anne
very well knew") from one saying when or why.

The finders share :func:`~kgcore.query.answer.spans.answer_spans`'s signature and are registered in its
:data:`~kgcore.query.answer.spans.FINDERS`.
"""

from __future__ import annotations

from kgcore.query.answer.expected import Expected
from kgcore.query.answer.span_tokens import Span, local, noun_senses, subtree
from kgcore.query.answer.span_words import (
    DEFINING_VERBS,
    MANNER_AS_VERBS,
    MEANS_WORDS,
    MOTION_VERBS,
    OBJECT_CONTROL_VERBS,
    PURPOSE_VERBS,
    REASON_WORDS,
)

#: WordNet senses of what one moves through: a place, a crowd, a thing ("the throng", "the door", "the wood").
PATH_SENSES = frozenset(("location", "group", "artifact", "object", "body", "plant", "substance"))

#: What a verb of an "as" clause of manner lacks: "as he was told" (told what?), not "as he told the story".
COMPLEMENTS = frozenset(("dobj", "ccomp", "xcomp", "prep", "dative", "attr", "acomp", "oprd", "advcl"))


def as_in_manner(mark) -> bool:
    """Whether an "as" clause says how rather than when: it has no subject ("as expected"), its verb is a modal
    ("loved him *as she ought*"), or a verb of saying, telling or wishing missing its complement ("*as he was
    told*", "*as she had hoped*"; not "as he told the story", nor "as she was saying goodbye": times).

    >>> from kgcore.core.nlp import load_spacy
    >>> nlp = load_spacy()
    >>> texts = ("She loved him as she ought.", "He came as he was told.", "She cried as he told the story.",
    ...          "The phone rang as she was at home.")
    >>> [as_in_manner(t) for s in texts for t in nlp(s) if t.lower_ == "as"]
    [True, True, False, False]
    """
    if mark.lower_ != "as" or mark.dep_ != "mark":
        return False
    verb, children = mark.head, list(mark.head.children)
    if not any(c.dep_ in ("nsubj", "nsubjpass", "expl", "csubj") for c in children) or verb.tag_ == "MD":
        return True
    lemma = "hope" if verb.lemma_.lower() == "hop" else verb.lemma_.lower()  # the small model's lemma of "hoped"
    return verb.tag_ != "VBG" and lemma in MANNER_AS_VERBS and not any(c.dep_ in COMPLEMENTS for c in children)



#: Degree words whose infinitive is a result, not a purpose ("too tired to walk", "old enough to marry").
DEGREE_WORDS = frozenset(("too", "enough"))


def reason_spans(tokens: list, expected: Expected, asked: set[str], q_doc) -> list[Span]:
    spans = []
    for t in tokens:
        if _says_why(t):
            spans.append(subtree(tokens, t.head) if t.dep_ == "mark" else (local(tokens, t), local(tokens, t) + 1))
        elif _purpose(t):
            spans.append(subtree(tokens, t.head))
        elif t.lower_ in ("due", "owing") and t.i + 1 < len(t.doc) and t.nbor(1).lower_ == "to":
            spans.append(subtree(tokens, t))
        elif _ground(t):
            spans.append(subtree(tokens, t))
    return spans


#: Verbs (and adjectives) of judging or feeling about someone whose "for" phrase gives the ground: "executed *for
#: the crime of witchcraft*", "thanked him *for his help*", "famous *for* its wines".
JUDGING_WORDS = frozenset("""execute hang punish arrest imprison jail blame accuse charge condemn convict sentence
    fine scold reproach censure criticise criticize praise thank reward forgive pardon admire love hate despise
    respect envy pity honour honor famous know notable grateful thankful sorry ashamed""".split())
#: Senses of a noun that a motive is: "out of *pity*", "out of *curiosity*", "out of *respect*".
MOTIVE_SENSES = frozenset(("feeling", "motive", "cognition", "attribute"))


def _ground(token) -> bool:
    """Whether ``token`` opens a phrase giving a ground: "*because of* the rain", "*on account of* his illness",
    "*out of* pity" (a feeling or motive, not "out of the house"), or the "for" of a verb or adjective of
    judging (:data:`JUDGING_WORDS`): "executed *for* the crime", not "went to town *for* bread".

    >>> from kgcore.core.nlp import load_spacy
    >>> nlp = load_spacy()
    >>> texts = ("He stayed because of the rain.", "He was executed for witchcraft.", "She wed him out of pity.",
    ...          "He went to town for bread.", "He ran out of the house.", "He left on account of his illness.",
    ...          "He was sentenced for ten years.")
    >>> [[t.text for t in nlp(s) if _ground(t)] for s in texts]
    [['because'], ['for'], ['out'], [], [], ['on'], []]
    """
    word, after = token.lower_, token.nbor(1) if token.i + 1 < len(token.doc) else None
    if word == "because" and token.dep_ == "prep":
        return after is not None and after.lower_ == "of"
    if word == "on" and token.dep_ == "prep" and after is not None and after.lower_ == "account":
        return token.i + 2 < len(token.doc) and token.nbor(2).lower_ == "of"
    if word == "out" and token.dep_ == "prep" and after is not None and after.lower_ == "of":
        return any(set(noun_senses(o)[:1]) & MOTIVE_SENSES for o in after.children if o.dep_ == "pobj")
    return word == "for" and token.dep_ == "prep" and token.head.lemma_.lower() in JUDGING_WORDS and not any(
        o.ent_type_ in ("DATE", "TIME", "MONEY") for o in token.children if o.dep_ == "pobj")  # "sentenced for ten
    # years", "fined for 50 dollars": how long or how much, not why


def _says_why(token) -> bool:
    """Whether ``token`` is a :data:`REASON_WORDS` word that says why ("because", "since he was ill", "so he
    stayed"), not a degree word ("so happy", "as tall"), the "as" of a comparison ("as fast as their legs could
    go") or of a comment (:func:`as_in_manner`: "as Anne very well knew"), or an exclamation ("Why, Anne!").

    >>> from kgcore.core.nlp import load_spacy
    >>> nlp = load_spacy()
    >>> [t.text for t in nlp("Since he was ill, he stayed; it was late, so she left.") if _says_why(t)]
    ['Since', 'so']
    >>> [t.text for t in nlp("Why, she was so happy and ran as fast as her legs could go.") if _says_why(t)]
    []
    >>> [t.text for t in nlp("The family was, as Anne very well knew, the least to blame.") if _says_why(t)]
    []
    >>> [t.text for t in nlp("As it was raining, they stayed.") if _says_why(t)]
    ['As']
    >>> [t.text for t in nlp("So they stayed at home, as it was raining.") if _says_why(t)]
    ['So', 'as']
    >>> [t.text for t in nlp("It is more useful as it needs no labels.") if _says_why(t)]
    ['as']
    """
    if token.lower_ not in REASON_WORDS or token.dep_ not in ("mark", "cc", "advmod"):
        return False
    if token.lower_ in ("so", "as") and token.dep_ == "advmod" and token.head.pos_ in ("ADJ", "ADV"):
        return False  # a degree word: "so happy", "as tall"
    if token.lower_ == "why" and token.i + 1 < len(token.doc) and token.nbor(1).text == ",":
        return False
    if token.lower_ == "as" and token.dep_ == "mark":
        compared = token.head.head  # "as fast as their legs could go": the clause hangs on "fast", which has "as"
        return not as_in_manner(token) and not (compared.pos_ in ("ADJ", "ADV") and any(
            c.lower_ in ("as", "so") and c.dep_ == "advmod" and c.i < token.i for c in compared.children))
    return True


def _purpose(token) -> bool:
    """Whether ``token`` is the "to" of a purpose infinitive: "came *to see* the king", "in order *to buy*", "so as
    *to avoid*"; not a verb's or an adjective's complement ("fails to hear her", "too indistinct to be followed",
    "sorry to say").

    >>> from kgcore.core.nlp import load_spacy
    >>> nlp = load_spacy()
    >>> [t.text for t in nlp("They came here to see the king and saved in order to buy a house.") if _purpose(t)]
    ['to', 'to']
    >>> [t.text for t in nlp("He used a knife to cut the rope, and she stopped to rest.") if _purpose(t)]
    ['to', 'to']
    >>> [t.text for t in nlp("Rosalind fails to hear her.") if _purpose(t)]
    []
    >>> [t.text for t in nlp("Visions too indistinctly drawn to be followed by disappointment.") if _purpose(t)]
    []
    """
    if token.lower_ != "to" or token.dep_ != "aux":
        return False
    verb = token.head
    if verb.dep_ == "advcl":
        return verb.head.pos_ != "ADJ" and not _of_degree(verb.head)
    if verb.dep_ == "xcomp":  # "used a knife to cut the rope", "stopped to rest"; not "fails to hear her"
        governor = verb.head.lemma_.lower()
        return verb.head.pos_ == "VERB" and governor not in OBJECT_CONTROL_VERBS and (
            governor in PURPOSE_VERBS or any(c.dep_ == "dobj" for c in verb.head.children))
    return verb.dep_ == "acl" and verb.head.lower_ in ("order", "as") and verb.head.i > 0 \
        and verb.head.nbor(-1).lower_ in ("in", "so")


def _of_degree(head) -> bool:
    """Whether ``head`` carries a "too" or "enough" (itself or on its adverb), so that an infinitive on it says how
    far, not what for: "too indistinctly drawn to be followed", "worked hard enough to pass"."""
    return any(c.dep_ == "advmod" and (c.lower_ in DEGREE_WORDS or any(g.lower_ in DEGREE_WORDS for g in c.children))
               for c in head.children)


def manner_spans(tokens: list, expected: Expected, asked: set[str], q_doc) -> list[Span]:
    spans = []
    for t in tokens:
        if t.lower_ in MEANS_WORDS and t.dep_ in ("prep", "advcl", "acl", "xcomp", "pcomp") and not _a_path(t):
            spans.append(subtree(tokens, t))
        elif t.lower_ == "based" and t.i + 1 < len(t.doc) and t.nbor(1).lower_ == "on":
            spans.append(subtree(tokens, t))
        elif t.lower_ == "as" and t.dep_ == "prep" and t.head.lemma_.lower() in DEFINING_VERBS:
            spans.append(subtree(tokens, t))  # "we define the dynamicity of a community as the average ..."
    return spans


def _a_path(preposition) -> bool:
    """Whether "through" says the way someone moved, not a means: it follows a verb of motion without an object
    (:data:`MOTION_VERBS`) and leads through a place, a crowd or a thing -- a proper noun, or a noun whose
    commonest WordNet sense is one (:data:`PATH_SENSES`): "pushed *through the throng*", "walked *through
    Paris*"; "came *through the kindness* of the Jesuits" and "learns *through label propagation*" are means.
    Without WordNet's files, "through" stays a means.

    >>> from kgcore.core.nlp import load_spacy
    >>> doc = load_spacy()("Cranly pushed through the throng; he came through the kindness of the Jesuits.")
    >>> [_a_path(t) for t in doc if t.lower_ == "through"]
    [True, False]
    """
    verb = preposition.head
    if preposition.lower_ != "through" or verb.lemma_.lower() not in MOTION_VERBS or any(
            c.dep_ == "dobj" for c in verb.children):
        return False
    ground = next((c for c in preposition.children if c.dep_ == "pobj"), None)
    if ground is None or ground.pos_ == "PROPN":
        return ground is not None
    senses = noun_senses(ground)
    return bool(senses) and senses[0] in PATH_SENSES
