"""A question's verbs said in other words: "Who *told* Anne?" answered by "Anne *heard* it from Diana".

The sentence scorer (:func:`~kgcore.query.answer.select.score_sentences`) counts the question's content lemmas a
sentence holds, and a verb weighs most (:func:`~kgcore.query.answer.words.question_term_weights`).  People ask in
their own words, so the sentence that answers often says the question's verb with another one: "By what factor
does CacheBlend *cut* the time to first token?" -- "CacheBlend *reduces* TTFT by 2.2-3.3×".  Counting only the
same stem, that sentence misses the question's weightiest word, and the verdict called it not supported.

Here a question verb the sentence lacks counts as held when one of the sentence's own verbs is close to it: the
cosine of the two lemmas' MiniLM vectors (the project's sentence embedder, on single words) reaches
:data:`PARAPHRASE_MIN`.  Only verbs are compared, and only with verbs, and light verbs ("be", "have", "do", "get",
"go", "come", "make") never: a noun's neighbours in the embedding are its topic, not its synonyms.  Word vectors
do not tell a synonym from a converse or an opposite ("sell" and "buy" are as close as "persuade" and
"convince"), so a paraphrase adds the verb to the words a sentence holds and decides nothing alone.

>>> import numpy as np
>>> class Toy:  # two-dimensional "word vectors": tell and hear close, eat far
...     def encode(self, words, max_tokens=None):
...         table = {"tell": [1.0, 0.0], "hear": [0.8, 0.6], "eat": [0.0, 1.0]}
...         return np.array([table[w] for w in words])
>>> paraphrased_verbs(["tell"], [{"hear"}, {"eat"}, {"tell"}], Toy())
[{'tell': 'hear'}, {}, {}]
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from kgcore.core.embed import Embedder
from kgcore.query.answer.words import LIGHT_VERBS

#: The cosine of two verbs' MiniLM vectors from which one says the other ("tell" / "hear" 0.53, "persuade" /
#: "convince" 0.67; unrelated verbs such as "eat" / "run" 0.38, "serve" / "fight" 0.20).
PARAPHRASE_MIN = 0.5


def verbs(doc) -> set[str]:
    """The lower-cased lemmas of a parsed text's verbs, light verbs left out."""
    return {t.lemma_.lower() for t in doc if t.pos_ == "VERB" and t.lemma_.lower() not in LIGHT_VERBS}


def question_verbs(q_doc, terms: dict[str, float]) -> list[str]:
    """The question's verbs among its weighted terms, in order."""
    return [v for v in dict.fromkeys(t.lemma_.lower() for t in q_doc if t.pos_ == "VERB") if v in terms]


def paraphrased_verbs(asked: Sequence[str], held: Sequence[set[str]], embedder: Embedder,
                      minimum: float = PARAPHRASE_MIN) -> list[dict[str, str]]:
    """Per sentence (its verbs in ``held``): each asked verb it lacks but says with a verb of its own whose
    cosine to it reaches ``minimum``, mapped to the closest such verb."""
    words = sorted(set(asked) | set().union(*held)) if held else []
    if not asked or not words:
        return [{} for _ in held]
    vectors = dict(zip(words, np.asarray(embedder.encode(words), dtype=np.float64)))
    out = []
    for own in held:
        found = {}
        for verb in asked:
            if verb in own or not own:
                continue
            cosine, closest = max((float(vectors[verb] @ vectors[v]), v) for v in own)
            if cosine >= minimum:
                found[verb] = closest
        out.append(found)
    return out
