"""Answer and retrieval metrics of the paper's section 4.2, each the best over the references.

Answer metrics compare a prediction with one or more reference answers
(NarrativeQA gives two) and keep the best score:

* :func:`exact_match` — the normalised prediction contains the normalised
  reference (lower-cased, whitespace collapsed, punctuation stripped at the
  ends), as a plain substring;
* :func:`sequence_match` — the reference's word tokens appear in order
  (as a subsequence) among the prediction's tokens, the paper's softer
  "his shoes and his jacket" contains "his shoes and jacket";
* :func:`rouge_l` — ROUGE-L F1 from ``rouge-score`` with the Porter stemmer;
* :class:`BertScorer` — BERTScore F1 (greedy matching of contextual token
  embeddings) with a local sentence-transformers encoder.

Retrieval metrics look at the context a method selected:
:func:`evidence_hit` and :func:`answer_token_recall`.

>>> exact_match("He was put in a pie by Mrs. McGregor!", ["put in a pie."])
1.0
>>> sequence_match("his shoes and his jacket", ["his shoes and jacket"])
1.0
>>> round(rouge_l("the cat lay on the mat", ["the cat sat on the mat"]), 4)
0.8333
"""

from __future__ import annotations

import re
import string
from collections.abc import Sequence

import numpy as np

from kgcore.core.embed import Embedder, get_embedder
from kgcore.core.embed.sbert import SentenceTransformerEmbedder
from kgcore.core.errors import ModelUnavailableError
from kgcore.core.settings import Settings
from kgcore.query.answer.words import content_words

_PUNCT_AT_ENDS = string.punctuation + "“”‘’«»—–…"
_QUOTES = str.maketrans({"’": "'", "‘": "'", "“": '"', "”": '"'})
_TOKEN = re.compile(r"[a-z0-9]+(?:'[a-z0-9]+)*")


def normalize_answer(text: str) -> str:
    """Lower-cased, curly quotes straightened, whitespace collapsed, punctuation stripped at the ends.

    >>> normalize_answer("  A dose of\\n camomile   TEA. ")
    'a dose of camomile tea'
    >>> normalize_answer("“Mr. McGregor’s garden!”")
    "mr. mcgregor's garden"
    """
    collapsed = " ".join(text.translate(_QUOTES).lower().split())
    return collapsed.strip(_PUNCT_AT_ENDS + " ")


def answer_tokens(text: str) -> list[str]:
    """Word tokens of an answer: lower-cased runs of letters/digits (apostrophes kept inside words).

    >>> answer_tokens("His jacket's brass-buttons, sir!")
    ['his', "jacket's", 'brass', 'buttons', 'sir']
    """
    return _TOKEN.findall(text.translate(_QUOTES).lower())


def _best(prediction: str, references: Sequence[str], score) -> float:
    refs = [r for r in references if r and r.strip()]
    if not refs:
        return 0.0
    return max(score(prediction or "", r) for r in refs)


def exact_match(prediction: str, references: Sequence[str]) -> float:
    """1.0 when the normalised prediction contains a normalised reference, else 0.0.

    >>> exact_match("Peter lost them in the cabbages", ["in the cabbages.", "among potatoes"])
    1.0
    >>> exact_match("Peter lost them among the cabbages", ["in the cabbages"])
    0.0
    >>> exact_match("anything", [""])
    0.0
    """

    def contains(pred: str, ref: str) -> float:
        ref_norm = normalize_answer(ref)
        return float(bool(ref_norm) and ref_norm in normalize_answer(pred))

    return _best(prediction, references, contains)


def is_subsequence(needle: Sequence[str], haystack: Sequence[str]) -> bool:
    """True when ``needle``'s items occur in ``haystack`` in the same order (gaps allowed).

    >>> is_subsequence(["a", "c"], ["a", "b", "c"]), is_subsequence(["c", "a"], ["a", "b", "c"])
    (True, False)
    """
    items = iter(haystack)
    return all(any(item == wanted for item in items) for wanted in needle)


def sequence_match(prediction: str, references: Sequence[str]) -> float:
    """1.0 when a reference's tokens appear in order among the prediction's tokens, else 0.0.

    >>> sequence_match("He squeezed under the big gate.", ["squeezed under gate"])
    1.0
    >>> sequence_match("under the gate he squeezed", ["squeezed under the gate"])
    0.0
    """

    def contains(pred: str, ref: str) -> float:
        needle = answer_tokens(ref)
        return float(bool(needle) and is_subsequence(needle, answer_tokens(pred)))

    return _best(prediction, references, contains)


_ROUGE = None


def rouge_l(prediction: str, references: Sequence[str]) -> float:
    """ROUGE-L F1 (``rouge-score``, Porter stemmer) against the best reference.

    >>> round(rouge_l("she bought a loaf of bread", ["a loaf of brown bread"]), 4)
    0.7273
    """
    global _ROUGE
    if _ROUGE is None:
        from rouge_score import rouge_scorer

        _ROUGE = rouge_scorer.RougeScorer(["rougeL"], use_stemmer=True)
    return _best(prediction, references, lambda pred, ref: _ROUGE.score(ref, pred)["rougeL"].fmeasure)


def greedy_match_f1(candidate: np.ndarray, reference: np.ndarray) -> tuple[float, float, float]:
    """BERTScore's (precision, recall, F1) from two matrices of L2-normalised token vectors.

    Every candidate token is matched to its most similar reference token
    (precision) and every reference token to its most similar candidate
    token (recall); no IDF weights and no baseline rescaling.

    >>> a = np.array([[1.0, 0.0], [0.0, 1.0]]); b = np.array([[1.0, 0.0]])
    >>> greedy_match_f1(a, b)
    (0.5, 1.0, 0.6667)
    """
    if candidate.size == 0 or reference.size == 0:
        return 0.0, 0.0, 0.0
    sims = candidate @ reference.T
    precision = float(sims.max(axis=1).mean())
    recall = float(sims.max(axis=0).mean())
    f1 = 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0
    return round(precision, 4), round(recall, 4), round(f1, 4)


class BertScorer:
    """BERTScore F1 with the token embeddings of a local sentence-transformers model.

    ``embedder`` is a kgcore embedder with a ``model`` attribute (the
    sentence-transformers model) and a ``name``; the default is the bundled
    all-MiniLM-L6-v2 (:func:`kgcore.core.embed.get_embedder`).  Scores depend on
    the encoder, so :attr:`model_name` is recorded with every result.
    Token matrices are cached per string: references are encoded once.
    """

    def __init__(self, embedder: Embedder | None = None):
        if embedder is None:
            # Token vectors come from the sentence-transformers model: always the torch backend.
            embedder = get_embedder("", Settings.from_env().device, "torch")
        if not isinstance(embedder, SentenceTransformerEmbedder):
            raise ModelUnavailableError(f"BERTScore needs token vectors: embedder {embedder.name!r} is not the "
                                        "sentence-transformers (torch) backend")
        self.model = embedder.model
        self.model_name = embedder.name
        self._cache: dict[str, np.ndarray] = {}

    def token_vectors(self, texts: Sequence[str]) -> list[np.ndarray]:
        """L2-normalised contextual token vectors of each text, special tokens dropped."""
        missing = list(dict.fromkeys(t for t in texts if t not in self._cache))
        if missing:
            outputs = self.model.encode(missing, output_value="token_embeddings", convert_to_numpy=False,
                                        show_progress_bar=False)
            masks = self.model.tokenizer(missing, return_special_tokens_mask=True, truncation=True,
                                         max_length=self.model.max_seq_length)["special_tokens_mask"]
            for text, tokens, special in zip(missing, outputs, masks):
                matrix = tokens.detach().cpu().float().numpy()
                keep = np.array(special) == 0 if len(special) == len(matrix) else slice(1, -1)
                matrix = matrix[keep]
                norms = np.linalg.norm(matrix, axis=1, keepdims=True)
                self._cache[text] = matrix / np.where(norms == 0, 1.0, norms)
        return [self._cache[t] for t in texts]

    def score(self, prediction: str, references: Sequence[str]) -> float:
        """BERTScore F1 of ``prediction`` against its best reference (0.0 for an empty prediction)."""
        refs = [r.strip() for r in references if r and r.strip()]
        prediction = (prediction or "").strip()
        if not refs or not prediction:
            return 0.0
        vectors = self.token_vectors([prediction, *refs])
        return max(greedy_match_f1(vectors[0], ref)[2] for ref in vectors[1:])


def _squash(text: str) -> str:
    return " ".join(text.translate(_QUOTES).lower().split())


def evidence_hit(evidence: str, context: Sequence[str]) -> bool:
    """Whether the evidence string is inside the context (case and whitespace ignored).

    ``context`` is the selected sentences' texts in document order; the
    evidence may span several consecutive sentences.  An empty evidence is
    never a hit (callers report "no evidence" separately).

    >>> ctx = ["Peter was most dreadfully frightened;", "he rushed all over the garden."]
    >>> evidence_hit("FRIGHTENED; he  rushed", ctx), evidence_hit("rushed home", ctx), evidence_hit("", ctx)
    (True, False, False)
    """
    needle = _squash(evidence or "").strip(_PUNCT_AT_ENDS + " ")
    if not needle:
        return False
    return needle in _squash(" ".join(context)) or any(needle in _squash(s) for s in context)


def answer_token_recall(answers: Sequence[str], context: Sequence[str]) -> float:
    """Share of a reference's content words found in the context, best over the references.

    Content words are lower-cased, without stopwords, possessives and plural
    ``s`` (:func:`kgcore.query.answer.words.content_words`).

    >>> answer_token_recall(["A loaf of brown bread."], ["She bought a loaf of bread."])
    0.6667
    >>> answer_token_recall(["Brown bread", "A loaf"], ["She bought a loaf of bread."])
    1.0
    """
    present = content_words(" ".join(context))
    best = 0.0
    for answer in answers:
        wanted = content_words(answer or "")
        if wanted:
            best = max(best, len(wanted & present) / len(wanted))
    return round(best, 4)
