"""Entity names: normalisation, heads, acronym keys, character n-grams and acronym definitions found in the text.

All pure functions.

>>> normalise("The Retrieval-Augmented  Generation"), head("BERT-base model"), singular("LLMs")
('retrieval augmented generation', 'model', 'llm')
>>> initials("retrieval-augmented generation"), acronym_key("LLMs"), acronym_key("Peter")
('rag', 'llm', '')
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from kgcore.index.coref.emphasis import ACRONYM_SHARE

_NON_WORD = re.compile(r"[^0-9a-z+#]+")
_ARTICLES = ("the ", "a ", "an ", "our ", "their ", "this ", "these ")
#: Titles before a person's name, with the sex they imply ("" when none).
HONORIFICS = {"mr": "m", "mrs": "f", "miss": "f", "ms": "f", "mister": "m", "sir": "m", "lady": "f", "dr": "",
              "prof": "", "professor": "", "madame": "f", "monsieur": "m", "mme": "f", "captain": "",
              "count": "m", "comte": "m", "vicomte": "m", "viscount": "m", "countess": "f", "comtesse": "f",
              "la": "f", "le": "m", "mlle": "f", "mademoiselle": "f", "signor": "m", "seignior": "m", "senor": "m",
              "old": "", "little": "", "young": ""}
#: An acronym: 2-8 capitals or digits (with lower-case letters inside, "mDPR", "BioASQ"), optionally plural.
_ACRONYM = re.compile(r"^[A-Za-z]?[A-Z][A-Za-z0-9&-]{0,7}?s?$")
#: "Long Form (LF)" and "LF (long form)" in a sentence.
_LONG_THEN_SHORT = re.compile(
    r"((?:[A-Za-z][\w-]*\s+){0,7}[A-Za-z][\w-]*)\s*\(\s*([A-Za-z][A-Za-z0-9-]{1,9}?s?)\s*[),;]")
_SHORT_THEN_LONG = re.compile(r"\b([A-Z][A-Za-z0-9-]{1,9}?s?)\s*\(\s*([A-Za-z][\w-]*(?:\s+[\w-]+){1,7})\s*\)")


def normalise(name: str) -> str:
    """Lower case, hyphens and punctuation as spaces, a leading article dropped.

    >>> normalise("Mr. McGregor"), normalise("the BERT-base"), normalise("  "), normalise("Retro++")
    ('mr mcgregor', 'bert base', '', 'retro++')
    """
    text = " ".join(_NON_WORD.sub(" ", name.lower()).split())
    for article in _ARTICLES:
        if text.startswith(article) and len(text) > len(article):
            return text[len(article):]
    return text


def singular(name: str) -> str:
    """The normalised name with its last word made singular (a plain English rule, no lexicon).

    >>> singular("RAG systems"), singular("Large Language Models"), singular("analyses"), singular("bus")
    ('rag system', 'large language model', 'analysis', 'bus')
    """
    words = normalise(name).split()
    if not words:
        return ""
    last = words[-1]
    if len(last) > 4 and last.endswith("ies"):
        last = last[:-3] + "y"
    elif len(last) > 4 and last.endswith("ses") and not last.endswith("sses"):
        last = last[:-2] + "is" if last.endswith("yses") else last[:-1]
    elif len(last) > 2 and last.endswith("s") and not last.endswith(("ss", "us", "is")):
        last = last[:-1]
    return " ".join([*words[:-1], last])


def head(name: str) -> str:
    """The head word of a name: its last normalised word, singular.

    >>> head("Dense Passage Retrievers"), head("")
    ('retriever', '')
    """
    words = singular(name).split()
    return words[-1] if words else ""


def initials(name: str) -> str:
    """The first letters of a long form's words (hyphenated parts count as words), function words skipped.

    >>> initials("Bidirectional Encoder Representations from Transformers"), initials("Dense Passage Retrieval")
    ('bert', 'dpr')
    """
    return "".join(w[0] for w in normalise(name).split() if w and w not in _SKIPPABLE)


def acronym_key(name: str) -> str:
    """The lower-cased acronym a name is ("LLMs" -> "llm"), or "" when it is no acronym.

    >>> acronym_key("RAG"), acronym_key("mDPR"), acronym_key("NQ"), acronym_key("Table"), acronym_key("GPT-4")
    ('rag', 'mdpr', 'nq', '', 'gpt 4')
    """
    word = name.strip()
    if " " in word or not _ACRONYM.match(word) or sum(ch.isupper() for ch in word) < 2:
        return ""
    if word.endswith("s") and word[:-1].isupper():
        word = word[:-1]
    return normalise(word)


def acronym_matches(short: str, long: str) -> bool:
    """Whether ``short`` abbreviates ``long``: its letters are the initials of the long form's words, allowing
    skipped function words, or a prefix-of-word match for letters beyond the initials ("REALM").

    >>> acronym_matches("RAG", "retrieval-augmented generation"), acronym_matches("LLMs", "large language models")
    (True, True)
    >>> acronym_matches("KILT", "Knowledge Intensive Language Tasks"), acronym_matches("RAG", "reading group")
    (True, False)
    """
    letters = acronym_key(short).replace(" ", "")
    words = [w for w in normalise(long).split() if w]
    return bool(letters) and len(words) >= 2 and _spell(letters, words)


_SKIPPABLE = frozenset({"of", "for", "and", "the", "in", "on", "to", "with", "from", "a", "an", "by"})


def _spell(letters: str, words: list[str]) -> bool:
    """Whether ``letters`` can be read off ``words`` in order: each word gives 1+ leading letters or is skipped."""
    if not letters:
        return all(w in _SKIPPABLE for w in words)
    if not words:
        return False
    first, rest = words[0], words[1:]
    if first in _SKIPPABLE and _spell(letters, rest):
        return True
    n = 0
    while n < len(first) and n < len(letters) and first[n] == letters[n]:
        n += 1
        if _spell(letters[n:], rest):
            return True
    return False


def definitions(sentences: Iterable[str]) -> dict[str, set[str]]:
    """Acronym definitions written in the text: acronym key -> normalised long forms (singular).

    >>> d = definitions(["We use Retrieval-Augmented Generation (RAG) here.", "RAG (retrieval augmented generation)."])
    >>> d
    {'rag': {'retrieval augmented generation'}}
    >>> definitions(["large language models (LLMs) are big", "a reading group (RAG), see"])
    {'llm': {'large language model'}}
    """
    found: dict[str, set[str]] = {}
    for text in sentences:
        if "(" not in text:
            continue
        pairs = [(m.group(2), m.group(1)) for m in _LONG_THEN_SHORT.finditer(text)]
        pairs += [(m.group(1), m.group(2)) for m in _SHORT_THEN_LONG.finditer(text)]
        for short, long in pairs:
            _add_definition(found, short, long)
    return found


def _add_definition(found: dict[str, set[str]], short: str, long: str) -> None:
    key = acronym_key(short)
    if not key:
        return
    words = normalise(long).split()
    for start in range(len(words) - 1, -1, -1):  # the shortest tail of the words that the acronym spells
        tail = " ".join(words[start:])
        if acronym_matches(short, tail):
            found.setdefault(key, set()).add(singular(tail))
            return


def ngrams(name: str, n: int = 3) -> set[str]:
    """Character n-grams of the normalised name (padded), for blocking.

    >>> sorted(ngrams("RAG"))
    [' ra', 'ag ', 'rag']
    """
    text = f" {normalise(name)} "
    return {text[i:i + n] for i in range(len(text) - n + 1)} if len(text) > n else {text}


def strip_honorific(name: str) -> tuple[str, str]:
    """(the honorific's sex or "", the name without leading titles); a lone title stays.

    >>> strip_honorific("Mr. McGregor"), strip_honorific("Mrs. McGregor"), strip_honorific("DR UniEval")
    (('m', 'mcgregor'), ('f', 'mcgregor'), ('', 'dr unieval'))
    """
    words = normalise(name).split()
    written = name.split()
    sex = ""
    while len(words) > 1 and words[0] in HONORIFICS and written and not written[0].isupper():
        sex = sex or HONORIFICS[words[0]]
        words, written = words[1:], written[1:]
    return sex, " ".join(words)


def digits(name: str) -> tuple[str, ...]:
    """The numbers in a name (versions, sizes): names with different numbers are different things.

    >>> digits("GPT-3.5"), digits("Llama 2 7B"), digits("CHAPTER XIII")
    (('3', '5'), ('2', '7'), ('XIII',))
    """
    return tuple(re.findall(r"\d+|\b[IVXLC]+\b", name))


# ACRONYM_SHARE: the share of a common noun's mentions of its own word written in capitals that makes it an acronym,
# a name, as coreference tells an acronym from emphasis: The Phantom of the Opera's "head", "voice" and "hand", once in
# capitals among 80-100 mentions ("HIS HEAD", "THE VOICE" in chapter titles and shouts), were typed persons as names.


def fragment(name: str) -> bool:
    """Whether a name is the tail of a hyphenated word the parser cut ("-luck" of "ill-luck"): not the word itself.

    >>> fragment("-luck"), fragment("luck")
    (True, False)
    """
    return name.strip().startswith("-")


def is_named(node_id: str, texts: Sequence[str], label: str = "") -> bool:
    """Whether a node is a name: the linked graph kept its id unscoped, or the node's own name (``label``, up to
    number) is written as an acronym ("LLMs" for the node "llm") in at least :data:`ACRONYM_SHARE` of its
    mentions, not merely next to one ("the RAG retrieval" leaves "retrieval" a common noun), nor once in a heading
    or a shout among many ordinary mentions.

    >>> is_named("rag", ["RAG"]), is_named("p1/llm", ["LLMs", "llm"], "llm"), is_named("crusoe/father", ["father"])
    (True, True, False)
    >>> is_named("p1/retrieval", ["the RAG retrieval", "retrieval"], "retrieval")
    False
    >>> is_named("phantom/head", ["HIS HEAD", "his head", "her head", "the head of a concierge"], "head")
    False
    """
    if "/" not in node_id:
        return True
    own = singular(label) if label else ""
    words = [word for text in texts for word in text.split()
             if not own or singular(word) == own or singular(text) == own]
    capitals = sum(sum(ch.isupper() for ch in word) >= 2 for word in words)
    return capitals > 0 and capitals >= ACRONYM_SHARE * len(words)
