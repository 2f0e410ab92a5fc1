"""This thread's PyStemmer stemmer of an algorithm, made once per thread: a stemmer object is not thread-safe, and
Streamlit answers each session on its own thread.

BM25 and the answer pick stem with Snowball's ``porter``; the correctness rule with ``english`` (Porter2, which
stems "dies" to "die" where Porter gives "di").  PyStemmer was chosen over nltk's PorterStemmer, which it
replaced: the same algorithm (99 % of the word groups of two novels and ten rulebooks identical, the rest nltk's
own extensions such as "-ly" -> "-li"), imported in 1 ms instead of nltk's 1.1 s (nltk pulls in scipy.stats and
scikit-learn), which was the largest step before an app's first answer.

>>> stemmer().stemWord("running"), stemmer("english").stemWord("dies"), stemmer() is stemmer("porter")
('run', 'die', True)
"""

from __future__ import annotations

import threading

import Stemmer

_LOCAL = threading.local()


def stemmer(algorithm: str = "porter") -> Stemmer.Stemmer:
    """This thread's stemmer of ``algorithm`` (a Snowball algorithm name PyStemmer knows)."""
    stemmers: dict[str, Stemmer.Stemmer] = _LOCAL.__dict__.setdefault("stemmers", {})
    found = stemmers.get(algorithm)
    if found is None:
        found = stemmers[algorithm] = Stemmer.Stemmer(algorithm)
    return found
