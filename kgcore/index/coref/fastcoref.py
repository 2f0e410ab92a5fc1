"""The paper's neural coreference backend: fastcoref (F-Coref or LingMess).

Sentences are grouped into windows of ``window`` sentences joined by single
spaces (plus a few preceding sentences as context), the model clusters the
mentions of each window, and :func:`replacements_from_clusters` turns the
clusters into pronoun replacements per sentence.  Only third-person
pronouns are replaced, each by its cluster's representative mention (the
first non-pronoun mention, a proper-name one preferred).

The weights are not bundled: download ``biu-nlp/f-coref`` (or
``biu-nlp/lingmess-coref``) where there is internet and point
``KGCORE_FASTCOREF_MODEL`` at the folder.

>>> text = "Peter's mother made some tea; and she gave a dose of it to Peter!"
>>> tea, she, it = text.index("some tea"), text.index("she"), text.index(" it ") + 1
>>> clusters = [[(0, 14), (she, she + 3)], [(tea, tea + 8), (it, it + 2)]]
>>> reps = replacements_from_clusters(text, clusters, [0])
>>> apply_replacements(text, reps[0])
"Peter's mother made some tea; and Peter's mother gave a dose of some tea to Peter!"
"""

from __future__ import annotations

import bisect
import dataclasses
import importlib.util
import re
from collections.abc import Sequence
from pathlib import Path

from kgcore.core.errors import InputError, ModelUnavailableError
from kgcore.core.nlp import DEFAULT_SPACY_MODEL, MODEL_LOADING, load_spacy
from kgcore.core.types import Sentence
from kgcore.index.coref.base import DETERMINERS, CorefLink, apply_replacements, fit_case, possessive, starts_sentence

WEIGHTS = {"fcoref": "biu-nlp/f-coref", "lingmess": "biu-nlp/lingmess-coref"}
THIRD_PERSON = frozenset(
    "he him his himself she her hers herself it its itself they them their theirs themselves".split()
)
POSSESSIVES = frozenset(("his", "its", "their", "theirs", "hers"))
# Never a representative: pronouns of any person and relative words.
NOT_REPRESENTATIVE = THIRD_PERSON | frozenset(
    "i me my mine myself we us our ours ourselves you your yours yourself yourselves "
    "who whom whose which that this these those one".split()
)
# Words after which "her" is an object ("asked her the way"), not a possessive ("her umbrella").
_NOT_NOUN_PHRASE = frozenset(
    "a an the this that these those to in on at of for with and or but as from by up down out off "
    "away back so too very again then when if into onto over under about after before".split()
)
_NEXT_WORD = re.compile(r"[A-Za-z][\w'-]*")


class FastCoref:
    """fastcoref resolver reading weights from ``model_path`` (a folder with ``config.json``)."""

    name = "fastcoref"

    def __init__(self, model_path: str, kind: str = "fcoref", device: str = "cpu", window: int = 20,
                 context: int = 3, spacy_model: str | None = None):
        if kind not in WEIGHTS:
            raise InputError("coref", f"unknown fastcoref kind {kind!r} (choose one of fcoref, lingmess)")
        _require_package()
        self.model_path = _require_weights(model_path, kind)
        self.kind, self.device = kind, device
        self.window, self.context = max(1, window), max(0, context)
        self.spacy_model = spacy_model
        self._model = None

    def _load(self):
        if self._model is None:
            with MODEL_LOADING:  # one load however many threads ask; never beside spaCy's first import (hides torch)
                if self._model is None:
                    from fastcoref import FCoref, LingMessCoref

                    model_class = FCoref if self.kind == "fcoref" else LingMessCoref
                    # Passing our spaCy pipeline stops fastcoref from downloading en_core_web_sm.
                    self._model = model_class(
                        model_name_or_path=str(self.model_path), device=self.device,
                        nlp=load_spacy(self.spacy_model or DEFAULT_SPACY_MODEL), enable_progress_bar=False,
                    )
        return self._model

    def resolve(self, sentences: Sequence[Sentence]) -> list[Sentence]:
        return self.resolve_with_links(sentences)[0]

    def resolve_with_links(self, sentences: Sequence[Sentence]) -> tuple[list[Sentence], list[CorefLink]]:
        """Resolved sentences plus one :class:`CorefLink` per replaced pronoun."""
        texts = [s.normalized for s in sentences]
        windows = sentence_windows(texts, self.window, self.context)
        results = self._load().predict(texts=[w[1] for w in windows]) if windows else []
        per_sentence: list[list[tuple[int, int, str]]] = [[] for _ in texts]
        links: list[CorefLink] = []
        for (first, window_text, offsets, targets), result in zip(windows, results):
            clusters = result.get_clusters(as_strings=False)
            for start, end, new, rep in window_replacements(window_text, clusters):
                k = bisect.bisect_right(offsets, start) - 1
                if first + k not in targets:
                    continue
                per_sentence[first + k].append((start - offsets[k], end - offsets[k], new))
                rep_k = bisect.bisect_right(offsets, rep[0]) - 1
                links.append(CorefLink(
                    sentences[first + k].id, window_text[start:end], start - offsets[k], end - offsets[k],
                    window_text[rep[0]:rep[1]], sentences[first + rep_k].id, new,
                ))
        out = [dataclasses.replace(s, resolved=apply_replacements(s.normalized, per_sentence[k]))
               for k, s in enumerate(sentences)]
        return out, links


def _require_package() -> None:
    if importlib.util.find_spec("fastcoref") is None:
        raise ModelUnavailableError(
            "coref backend 'fastcoref' needs the fastcoref package: pip install -r requirements-fastcoref.txt "
            "(fastcoref==2.1.6) "
            "(or choose the offline 'heuristic' backend)"
        )


def _require_weights(model_path: str, kind: str) -> Path:
    repo = WEIGHTS[kind]
    local = "/models/" + repo.split("/")[1]
    how = (
        f"download the weights {repo} on a machine with internet (e.g. `huggingface-cli download {repo} "
        f"--local-dir {local}`), copy them here, and set KGCORE_FASTCOREF_MODEL={local}"
    )
    if not model_path:
        raise ModelUnavailableError(f"KGCORE_FASTCOREF_MODEL is not set: {how}")
    path = Path(model_path).expanduser()
    if not path.is_dir():
        raise ModelUnavailableError(f"KGCORE_FASTCOREF_MODEL={model_path}: folder does not exist: {how}")
    if not (path / "config.json").is_file():
        raise ModelUnavailableError(f"KGCORE_FASTCOREF_MODEL={model_path}: no config.json (no weights): {how}")
    return path


def sentence_windows(texts: Sequence[str], window: int = 20, context: int = 3):
    """Windows ``(first, text, offsets, targets)`` over the sentences.

    ``text`` joins sentences ``first..`` with single spaces, ``offsets[k]`` is
    where sentence ``first + k`` starts in it, and ``targets`` the sentence
    indices whose replacements the window decides (the others are context).

    >>> [(f, t, o, list(g)) for f, t, o, g in sentence_windows(["A b.", "He c.", "It d."], 2, 1)]
    [(0, 'A b. He c.', [0, 5], [0, 1]), (1, 'He c. It d.', [0, 6], [2])]
    """
    windows = []
    for target in range(0, len(texts), window):
        first = max(0, target - context)
        stop = min(len(texts), target + window)
        offsets, position = [], 0
        for text in texts[first:stop]:
            offsets.append(position)
            position += len(text) + 1
        windows.append((first, " ".join(texts[first:stop]), offsets, range(target, stop)))
    return windows


def replacements_from_clusters(window_text: str, clusters, sentence_offsets: Sequence[int]):
    """Per-sentence ``(start, end, new)`` pronoun replacements from fastcoref clusters.

    ``clusters`` is ``result.get_clusters(as_strings=False)``: lists of
    ``(start, end)`` character spans in ``window_text``; ``sentence_offsets``
    are the sentences' start offsets in it.  Spans come back relative to
    their own sentence.
    """
    per_sentence: list[list[tuple[int, int, str]]] = [[] for _ in sentence_offsets]
    for start, end, new, _ in window_replacements(window_text, clusters):
        k = bisect.bisect_right(sentence_offsets, start) - 1
        per_sentence[k].append((start - sentence_offsets[k], end - sentence_offsets[k], new))
    return per_sentence


def window_replacements(text: str, clusters) -> list[tuple[int, int, str, tuple[int, int]]]:
    """``(start, end, new, representative span)`` for every third-person pronoun mention."""
    raw = []
    for cluster in clusters:
        spans = sorted({(s, e) for s, e in cluster if s is not None and e is not None})
        rep = representative(text, spans)
        if rep is None:
            continue
        for s, e in spans:
            if text[s:e].lower() in THIRD_PERSON and not (rep[0] <= s and e <= rep[1]):
                raw.append((s, e, rep))
    out = []
    for s, e, rep in raw:
        # Pronouns inside the representative ("his mother") are resolved too, one level deep.
        inner = [(s2 - rep[0], e2 - rep[0], text[r2[0]:r2[1]]) for s2, e2, r2 in raw
                 if rep[0] <= s2 and e2 <= rep[1] and not (r2[0] <= s and e <= r2[1])]
        mention = apply_replacements(text[rep[0]:rep[1]], inner)
        plural = text[s:e].lower() in ("their", "theirs") and not mention.endswith("'s")
        new = possessive(mention, plural) if _is_possessive(text, s, e) else mention
        at_start = text[s].isupper() and starts_sentence(text, s)
        out.append((s, e, fit_case(new, at_start, False), rep))
    return out


def representative(text: str, spans: Sequence[tuple[int, int]]) -> tuple[int, int] | None:
    """The first non-pronoun mention, a proper-name one preferred.

    >>> text = "the rabbit saw Peter; he ran"
    >>> representative(text, [(0, 10), (15, 20), (22, 24)])
    (15, 20)
    >>> representative(text, [(22, 24)]) is None
    True
    """
    nominal = [sp for sp in spans if text[sp[0]:sp[1]].lower() not in NOT_REPRESENTATIVE]
    proper = [sp for sp in nominal if _has_name(text[sp[0]:sp[1]])]
    candidates = proper or nominal
    return candidates[0] if candidates else None


def _has_name(mention: str) -> bool:
    words = [w.removesuffix("'s") for w in mention.split()]
    return any(w[:1].isupper() and w.lower() not in DETERMINERS and w.lower() != "i" for w in words)


def _is_possessive(text: str, start: int, end: int) -> bool:
    word = text[start:end].lower()
    if word in POSSESSIVES:
        return True
    if word != "her":
        return False
    following = _NEXT_WORD.match(text, end + 1) if text[end:end + 1] == " " else None
    return following is not None and following.group().lower() not in _NOT_NOUN_PHRASE
