"""Grounded community summaries: a title and sentences (or claims) that all carry source sentence ids.

**Extractive** (offline, the default): the community's *grounding* is every retrievable sentence that grounds
one of its member entities.  A member's **centrality** is its weighted degree inside the community (links to
other members, :mod:`.graph`).  A sentence is worth the centrality of the members it grounds that no chosen
sentence covers yet (**coverage**); sentences are taken by MMR, ``LAMBDA * coverage - (1 - LAMBDA) * (the
largest cosine to a chosen sentence)``, up to :data:`MAX_SENTENCES` sentences and :data:`MAX_WORDS` words.
Every summary sentence *is* a source sentence, cited by its id.  The **title** names the most central members.

**Abstractive** (an OpenAI-compatible endpoint and ``KGCORE_COMMUNITY_LLM=1``): the model reads the best
:data:`PROMPT_SENTENCES` grounding sentences with their ids and returns a JSON report (title, summary claims,
key findings), each claim citing ids.  A claim without an id, or citing a sentence outside the community's
grounding, rejects the report; it is asked once more saying why, and a second rejection (or a failed call)
falls back to the extractive summary, noting why.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

import numpy as np

from kgcore.core.errors import GenerationError
from kgcore.index.views.junk import is_junk_label

#: MMR trade-off between new coverage and redundancy (1: coverage only).
LAMBDA = 0.7
MAX_SENTENCES = 5
MAX_WORDS = 150
#: Members named in the title.
TITLE_ENTITIES = 3
#: Grounding sentences shown to the model for an abstractive report.
PROMPT_SENTENCES = 20
PROMPT_VERSION = 1
EXTRACTIVE, LLM = "extractive", "llm"


@dataclass(frozen=True)
class Claim:
    """One statement of a summary and the source sentences that back it (``part``: summary or finding)."""

    text: str
    sentence_ids: tuple[str, ...]
    part: str = "summary"


@dataclass(frozen=True)
class Summary:
    """A community's grounded summary: its claims cite only sentences of its grounding."""

    community: str
    title: str
    claims: tuple[Claim, ...]
    kind: str = EXTRACTIVE
    #: Members by centrality (labels), the documents of the grounding and its size in sentences.
    entities: tuple[str, ...] = ()
    documents: tuple[str, ...] = ()
    n_sentences: int = 0
    #: Digest of the member set and its grounding: an equal signature lets a later build reuse the summary.
    signature: str = ""
    notes: tuple[str, ...] = field(default=(), compare=False)
    #: Grounding sentences of the main text (no footnote, caption or acknowledgement) and the members' closeness
    #: to their documents (:mod:`.signals`); None when not measured (a summary built elsewhere).
    main_sentences: int | None = None
    topicality: float | None = None

    @property
    def sentence_ids(self) -> tuple[str, ...]:
        """Every cited sentence id, in claim order, each once."""
        return tuple(dict.fromkeys(s for c in self.claims for s in c.sentence_ids))

    @property
    def text(self) -> str:
        return " ".join(c.text for c in self.claims if c.part == "summary")

    def to_dict(self) -> dict:
        return {"community": self.community, "title": self.title, "kind": self.kind,
                "claims": [{"text": c.text, "sentence_ids": list(c.sentence_ids), "part": c.part}
                           for c in self.claims],
                "entities": list(self.entities), "documents": list(self.documents), "n_sentences": self.n_sentences,
                "signature": self.signature, "notes": list(self.notes), "main_sentences": self.main_sentences,
                "topicality": self.topicality}

    @classmethod
    def from_dict(cls, d: dict) -> Summary:
        claims = tuple(Claim(c["text"], tuple(c["sentence_ids"]), c.get("part", "summary")) for c in d["claims"])
        return cls(d["community"], d["title"], claims, d.get("kind", EXTRACTIVE), tuple(d.get("entities", ())),
                   tuple(d.get("documents", ())), int(d.get("n_sentences", 0)), d.get("signature", ""),
                   tuple(d.get("notes", ())), d.get("main_sentences"), d.get("topicality"))


def signature(members: tuple[str, ...], grounding: list[str]) -> str:
    """Digest of a member set and its grounding sentence ids (order-free).

    >>> signature(("b", "a"), ["s2", "s1"]) == signature(("a", "b"), ["s1", "s2"]), len(signature(("a",), []))
    (True, 16)
    """
    h = hashlib.sha1("\n".join(sorted(members)).encode())
    h.update(b"\0" + "\n".join(sorted(grounding)).encode())
    return h.hexdigest()[:16]


def title_of(labels: list[str]) -> str:
    """The title: the most central members' labels, each once (case-insensitively), none that says nothing about a
    topic (a number, a section label, a lone letter, a generic noun: :func:`~kgcore.index.views.junk.is_junk_label`).

    >>> title_of(["Fund Manager", "fund manager", "Regulator", "Fund", "Rules"])
    'Fund Manager · Regulator · Fund'
    >>> title_of(["A", "E", "L1 norm", "5.2", "method", "eigenvector", "PageRank"]), title_of(["3", "t"])
    ('L1 norm · eigenvector · PageRank', '(untitled)')
    """
    seen: dict[str, str] = {}
    for label in labels:
        if not is_junk_label(label):
            seen.setdefault(label.lower(), label)
    return " · ".join(list(seen.values())[:TITLE_ENTITIES]) or "(untitled)"


def mmr_select(weights: np.ndarray, vectors: np.ndarray, words: np.ndarray, max_sentences: int = MAX_SENTENCES,
               max_words: int = MAX_WORDS, lam: float = LAMBDA) -> list[int]:
    """Pick sentence positions by MMR over coverage (see the module docstring).

    ``weights[s, m]``: the centrality of member m when sentence s grounds it, else 0.  A sentence over the word
    cap is skipped; one covering nothing new ends the selection.

    >>> w = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 0.5]])
    >>> v = np.eye(3)
    >>> mmr_select(w, v, np.array([5, 5, 5]))
    [0, 2]
    """
    chosen: list[int] = []
    if not weights.shape[0]:
        return chosen
    covered = np.zeros(weights.shape[1], dtype=bool)
    total = 0
    while len(chosen) < max_sentences:
        gain = weights[:, ~covered].sum(axis=1)
        if chosen:
            redundancy = (vectors @ vectors[chosen].T).max(axis=1)
            score = lam * gain - (1 - lam) * redundancy * float(gain.max())
        else:
            score = gain.copy()
        score[chosen] = -np.inf
        score[total + words > max_words] = -np.inf
        best = int(np.argmax(score))
        if not np.isfinite(score[best]) or gain[best] <= 0:
            break
        chosen.append(best)
        covered |= weights[best] > 0
        total += int(words[best])
    return chosen


class Completer(Protocol):
    """What the abstractive report needs of :class:`~kgcore.core.chat.ChatClient`."""

    def complete(self, prompt: str) -> tuple[Any, int]: ...

    def text_of(self, response: Any) -> tuple[str, str | None]: ...


def report_prompt(title: str, sentences: list[tuple[str, str]], problem: str = "") -> str:
    """The prompt asking for a JSON community report citing the given (id, text) sentences."""
    lines = "\n".join(f"[{sid}] {text}" for sid, text in sentences)
    again = f"\nYour previous report was rejected: {problem}. Cite only the ids above, in every claim.\n" \
        if problem else ""
    return (f"You write a report about one community of related entities ({title}) from the source sentences "
            f"below, each behind its id in brackets.\n{lines}\n{again}\n"
            'Return only JSON: {"title": "...", "summary": [{"text": "...", "sentence_ids": ["..."]}], '
            '"findings": [{"text": "...", "sentence_ids": ["..."]}]}. The summary has 1-3 claims, the findings '
            "1-5; every claim states only what its cited sentences say and cites at least one id from the list.")


_JSON = re.compile(r"\{.*\}", re.DOTALL)


def parse_report(text: str, allowed: set[str]) -> tuple[str, tuple[Claim, ...]]:
    """(title, claims) of a model's JSON report; :class:`ValueError` saying why when a claim is not grounded.

    >>> parse_report('{"title": "T", "summary": [{"text": "A.", "sentence_ids": ["d/text_0-1"]}]}', {"d/text_0-1"})
    ('T', (Claim(text='A.', sentence_ids=('d/text_0-1',), part='summary'),))
    >>> parse_report('{"title": "T", "summary": [{"text": "A.", "sentence_ids": ["x"]}]}', {"d/text_0-1"})
    Traceback (most recent call last):
    ...
    ValueError: the claim 'A.' cites x, which is not a sentence of this community
    """
    found = _JSON.search(text)
    try:
        data = json.loads(found.group(0) if found else text)
    except json.JSONDecodeError:
        raise ValueError("the reply is not JSON") from None
    if not isinstance(data, dict):
        raise ValueError("the reply is not a JSON object")
    claims = []
    for part, key in (("summary", "summary"), ("finding", "findings")):
        for item in data.get(key) or []:
            text_, ids = (item.get("text", ""), item.get("sentence_ids") or []) if isinstance(item, dict) else ("", [])
            ids = [str(i) for i in ids]
            if not str(text_).strip():
                continue
            if not ids:
                raise ValueError(f"the claim {text_!r} cites no sentence")
            foreign = [i for i in ids if i not in allowed]
            if foreign:
                raise ValueError(f"the claim {text_!r} cites {', '.join(foreign)}, which is not a sentence of this "
                                 "community")
            claims.append(Claim(" ".join(str(text_).split()), tuple(dict.fromkeys(ids)), part))
    if not any(c.part == "summary" for c in claims):
        raise ValueError("the report has no summary claim")
    return " ".join(str(data.get("title") or "").split()), tuple(claims)


def abstractive(extractive: Summary, sentences: list[tuple[str, str]], allowed: set[str],
                client: Completer) -> Summary:
    """The model's report for a community, or ``extractive`` with a note when it is rejected twice or fails."""
    problem = ""
    for _ in range(2):
        try:
            response, _ = client.complete(report_prompt(extractive.title, sentences, problem))
            text, _ = client.text_of(response)
            title, claims = parse_report(text, allowed)
        except ValueError as exc:
            problem = str(exc)
            continue
        except GenerationError as exc:
            problem = str(exc)
            break
        return replace(extractive, title=title or extractive.title, claims=claims, kind=LLM)
    note = f"abstractive report rejected, extractive summary kept: {problem}"
    return replace(extractive, notes=(note,))
