"""Bounds on the work one small input can cause: over-long sentences cut, stored parser output capped.

A 200,000-character line without a full stop is one "sentence" to a
splitter; parsing it costs time and memory quadratic in its length and
stores megabytes of frames; a batch of such pieces through spaCy takes
hundreds of megabytes.  :func:`pipe_bounded` feeds spaCy batches of at most
:data:`PIPE_BATCH_WORDS` words; :func:`cap_spans` cuts every sentence span
longer than ``max_words`` words after the clause punctuation nearest before
the limit (``;`` ``:`` a dash, else ``,``), or at the limit itself when
there is none; :func:`cap_analysis` keeps a sentence's parser output under
``max_chars`` characters of JSON, counting what it leaves out.  Both limits
are settings (``KGCORE_MAX_SENTENCE_WORDS``, ``KGCORE_MAX_PARSE_CHARS``).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

_WORD = re.compile(r"\S+")
#: Words spaCy splits into sentences in one batch (64 pieces of 5,000 words took 0.6 GB; one took 0.1 GB).
PIPE_BATCH_WORDS = 5000
PIPE_BATCH_TEXTS = 64
#: Fewer texts than this are parsed in this process: starting parser processes costs more than it saves
#: (``KGCORE_PARALLEL_MIN_TEXTS``; parsing in processes is :mod:`kgcore.index.parallel`).
PARALLEL_MIN_TEXTS = 400
#: Words after which a clause ends: strong breaks first, then commas.
_STRONG_BREAK = re.compile(r"(?:[;:]|--|\u2014|\u2013)[\"'\u201d\u2019)\]]*$")
_COMMA_BREAK = re.compile(r",[\"'\u201d\u2019)\]]*$")


def cap_spans(spans: list[tuple[int, int]], text: str, max_words: int) -> list[tuple[int, int]]:
    """``spans`` of ``text`` with every span longer than ``max_words`` words cut into pieces of at most that many.

    A piece ends after the last clause break in the second half of its window (``;``, ``:``, a dash; else a
    comma), or after ``max_words`` words when there is none.  Offsets stay offsets into ``text``.

    >>> text = "one two three; four five six seven, eight nine ten eleven twelve"
    >>> [text[a:b] for a, b in cap_spans([(0, len(text))], text, 5)]
    ['one two three;', 'four five six seven,', 'eight nine ten eleven twelve']
    >>> [text[a:b] for a, b in cap_spans([(0, 13)], text, 2)]
    ['one two', 'three']
    >>> cap_spans([(0, 5)], "short", 5)
    [(0, 5)]
    """
    if max_words < 1:
        raise ValueError(f"max_words must be at least 1, got {max_words}")
    out: list[tuple[int, int]] = []
    for start, end in spans:
        words = [(m.start(), m.end()) for m in _WORD.finditer(text, start, end)]
        if len(words) <= max_words:
            out.append((start, end))
            continue
        first = 0
        while len(words) - first > max_words:
            cut = _cut(text, words, first, max_words)
            out.append((words[first][0], words[cut][1]))
            first = cut + 1
        out.append((words[first][0], end))
    return out


def _cut(text: str, words: list[tuple[int, int]], first: int, max_words: int) -> int:
    """Index of the last word of the piece starting at word ``first``."""
    window = range(first + max_words - 1, first + max_words // 2 - 1, -1)
    for pattern in (_STRONG_BREAK, _COMMA_BREAK):
        for i in window:
            if pattern.search(text, words[i][0], words[i][1]):
                return i
    return first + max_words - 1


def cap_analysis(analysis: dict[str, Any], max_chars: int) -> dict[str, Any]:
    """``analysis`` (one sentence's parser output) within about ``max_chars`` characters of JSON.

    SRL frames beyond the limit are dropped (``omitted`` says how many, and the size before); other long
    outputs (a PENMAN graph) are cut.

    >>> big = {"parser": "srl", "frames": [{"predicate": "run", "text": "x" * 40}] * 10}
    >>> capped = cap_analysis(big, 200)
    >>> len(capped["frames"]), capped["omitted"]["frames"], capped["omitted"]["chars"]
    (2, 8, 769)
    >>> cap_analysis({"penman": "(r / run)"}, 200)
    {'penman': '(r / run)'}
    """
    size = len(json.dumps(analysis, ensure_ascii=False))
    if size <= max_chars:
        return analysis
    frames = analysis.get("frames")
    if isinstance(frames, list):
        used = len(json.dumps({k: v for k, v in analysis.items() if k != "frames"}, ensure_ascii=False))
        kept = []
        for frame in frames:
            used += len(json.dumps(frame, ensure_ascii=False)) + 2
            if used > max_chars:
                break
            kept.append(frame)
        return {**analysis, "frames": kept, "omitted": {"frames": len(frames) - len(kept), "chars": size}}
    capped = {k: v[:max_chars] if isinstance(v, str) else v for k, v in analysis.items()}
    return {**capped, "omitted": {"chars": size}}


def word_batches(texts: Iterable[str], max_words: int = PIPE_BATCH_WORDS,
                 max_texts: int = PIPE_BATCH_TEXTS) -> Iterator[list[str]]:
    """``texts`` in order, in batches of at most ``max_texts`` texts and ``max_words`` words (a longer text alone).

    >>> [len(b) for b in word_batches(["a b"] * 5 + ["w " * 9] + ["c"], max_words=4, max_texts=3)]
    [2, 2, 1, 1, 1]
    """
    batch: list[str] = []
    words = 0
    for text in texts:
        size = len(text.split())
        if batch and (words + size > max_words or len(batch) >= max_texts):
            yield batch
            batch, words = [], 0
        batch.append(text)
        words += size
    if batch:
        yield batch


def parse_processes(requested: int, texts: int, min_texts: int = PARALLEL_MIN_TEXTS) -> int:
    """How many processes parse ``texts`` texts: ``requested`` (0: one per core), but 1 for fewer than
    ``min_texts``.

    >>> parse_processes(4, 10_000), parse_processes(4, 50), parse_processes(1, 10_000), parse_processes(4, 50, 10)
    (4, 1, 1, 4)
    """
    if requested == 1 or texts < min_texts:
        return 1
    return max(1, requested or os.cpu_count() or 1)


@dataclass(frozen=True)
class Parallel:
    """How one document's texts are parsed (:func:`kgcore.index.parallel.pipe_mapped`): in ``processes``
    spawned processes (0: one per core; 1: in this process) once there are ``min_texts`` texts, each batch
    given ``timeout_s`` seconds.

    >>> Parallel(processes=2).processes_for(10_000), Parallel(processes=2).processes_for(10), SERIAL.processes_for(9e9)
    (2, 1, 1)
    """

    processes: int = 1
    min_texts: int = PARALLEL_MIN_TEXTS
    timeout_s: float = 600.0

    @classmethod
    def of(cls, settings: Any) -> Parallel:
        """The parallelism ``settings`` (a :class:`~kgcore.core.settings.Settings`) ask for."""
        return cls(settings.parse_processes, settings.parallel_min_texts, settings.worker_timeout_s)

    def processes_for(self, texts: int) -> int:
        return parse_processes(self.processes, int(texts), self.min_texts)


#: Everything parsed in this process.
SERIAL = Parallel()


def pipe_bounded(nlp, texts: Iterable[str], disable: list[str], max_texts: int = PIPE_BATCH_TEXTS) -> Iterator[Any]:
    """``nlp.pipe(texts)`` in :func:`word_batches`: the same docs, in order, with bounded memory."""
    for batch in word_batches(texts, PIPE_BATCH_WORDS, max_texts):
        yield from nlp.pipe(batch, batch_size=len(batch), disable=disable)
