"""Grounded entity descriptions (the cross-document entity graph's bridge between questions and the graph, Suryawanshi
et al. 2025), each sentence cited.

Every entity grounded in at least ``Settings.entity_min_grounding`` sentences gets a short description:

* **extractive** (offline, the default): the 1-3 of its grounding sentences that best characterise it, chosen
  by maximal marginal relevance: *centrality* (cosine of a sentence to the mean of the entity's grounding
  vectors) against *novelty* (least cosine to the sentences already chosen).  Each sentence cites itself.
* **llm** (``KGCORE_ENTITY_DESCRIBE_LLM=1`` and an OpenAI-compatible endpoint, :mod:`kgcore.core.chat`): an
  abstractive description in which every sentence ends with the ids of sentences of *that entity's own*
  grounding in brackets.  A reply with an uncited sentence or a foreign id is rejected and asked for once
  more; a second rejection or an endpoint error falls back to the extractive description (noted on it).

Each description is embedded (``name: text``) with the index's embedder: one extra vector per entity.
Descriptions are stored in the collection's linked folder (:data:`STORED`, keyed to the collection's stamp
and people's merge and split decisions, :func:`described_stamp`).  They are **incremental**: a description
whose entity id and grounding hash (name, grounding ids and their texts) appear in an earlier file is
reused, so after adding or removing a document, or a decision, only entities whose grounding changed are
described again.
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from kgcore.core.atomic import replace_file
from kgcore.core.chat import ChatClient
from kgcore.core.embed import Embedder
from kgcore.core.errors import GenerationError, ModelUnavailableError
from kgcore.core.settings import Settings
from kgcore.core.types import RETRIEVABLE
from kgcore.index.store.in_memory import ENTITIES, CacheKey, Index
from kgcore.index.store.recovery import linked_folder
from kgcore.index.views.entities.cited import DescriptionSentence, check_description, llm_prompt
from kgcore.index.views.entities.decisions import HUMAN_FILE
from kgcore.index.views.entities.model import EntityGroup, entity_groups

log = logging.getLogger(__name__)

#: The descriptions' file in the collection's linked folder.
STORED = "entity_descriptions.npz"
#: Bumped whenever the descriptions change, so older files are neither read nor reused.
VERSION = 1
#: Most sentences in a description.
MAX_SENTENCES = 3
#: MMR trade-off: weight of centrality against redundancy with the sentences already chosen.
MMR_LAMBDA = 0.7
#: A candidate this similar to a chosen sentence adds nothing and ends the description.
MAX_REDUNDANCY = 0.9
#: An extractive description stops growing past this many words (its first sentence is always kept).
MAX_WORDS = 90
#: Grounding sentences shown to the LLM (the most central ones).
LLM_CONTEXT = 12
#: Tokens of ``name: description`` embedded.
EMBED_TOKENS = 128
EXTRACTIVE, LLM = "extractive", "llm"


@dataclass(frozen=True)
class Description:
    """An entity's description: cited sentences, how it was made, and the hash of the grounding it describes."""

    entity_id: str
    name: str
    sentences: tuple[DescriptionSentence, ...]
    method: str
    grounding_hash: str
    note: str = ""

    @property
    def text(self) -> str:
        return " ".join(s.text for s in self.sentences)

    @property
    def cited(self) -> tuple[str, ...]:
        """Every sentence id the description cites, in order, once."""
        return tuple(dict.fromkeys(i for s in self.sentences for i in s.cites))

    def to_dict(self) -> dict:
        return {"entity_id": self.entity_id, "name": self.name, "method": self.method,
                "grounding_hash": self.grounding_hash, "note": self.note,
                "sentences": [{"text": s.text, "cites": list(s.cites)} for s in self.sentences]}

    @classmethod
    def from_dict(cls, data: dict) -> Description:
        sentences = tuple(DescriptionSentence(s["text"], tuple(s["cites"])) for s in data["sentences"])
        return cls(data["entity_id"], data["name"], sentences, data["method"], data["grounding_hash"],
                   data.get("note", ""))


@dataclass(frozen=True)
class EntityDescriptions:
    """The descriptions of a collection's entities, their vectors (one row each), and how they were obtained."""

    descriptions: tuple[Description, ...]
    vectors: np.ndarray
    #: Described now / reused from an earlier generation / read from this generation's file.
    built: int = 0
    reused: int = 0
    loaded: int = 0
    seconds: float = 0.0
    _rows: dict[str, int] = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self) -> None:
        self._rows.update({d.entity_id: i for i, d in enumerate(self.descriptions)})

    def row(self, entity_id: str) -> int | None:
        return self._rows.get(entity_id)

    def of(self, entity_id: str) -> Description | None:
        row = self._rows.get(entity_id)
        return None if row is None else self.descriptions[row]

    @property
    def entity_ids(self) -> list[str]:
        return [d.entity_id for d in self.descriptions]


DESCRIPTIONS: CacheKey[EntityDescriptions] = CacheKey("entity-descriptions", group=ENTITIES)


def entity_descriptions(index: Index, embedder: Embedder, settings: Settings | None = None) -> EntityDescriptions:
    """The index's entity descriptions: read from its linked folder, else built (reusing an earlier generation's
    unchanged ones) and stored there.  Cached on the index."""
    settings = settings or Settings.from_env()
    return index.cache.get(DESCRIPTIONS, lambda: _stored(index, embedder, settings))


def signature(embedder: Embedder, settings: Settings) -> str:
    """What a stored description depends on besides its grounding (a file made otherwise is not reused).

    >>> class E: name = "m"
    >>> signature(E(), Settings())
    '{"embedder": "m", "llm": "", "min_grounding": 3, "version": 1}'
    """
    llm = settings.openai_model if settings.entity_describe_llm and settings.openai_configured else ""
    return json.dumps({"embedder": embedder.name, "llm": llm, "min_grounding": settings.entity_min_grounding,
                       "version": VERSION}, sort_keys=True)


def described_stamp(index: Index) -> str:
    """What a generation's stored descriptions were made from besides the signature: the collection's stamp and
    people's merge and split decisions (a decision changes entities within one generation)."""
    try:
        decisions = hashlib.sha1((index.path / HUMAN_FILE).read_bytes()).hexdigest()[:16]
    except OSError:
        decisions = "none"
    return f"{index.manifest.stamp}+{decisions}"


def entity_description(index: Index, group: EntityGroup, embedder: Embedder, settings: Settings | None = None
                       ) -> Description | None:
    """``group``'s description, for a page that shows one entity: from the collection's descriptions when they
    are built or stored, else described alone (the same description the full build gives it, without encoding
    every entity's: that takes about 200 s on the 40 ObliQA documents).  None below the grounding threshold."""
    settings = settings or Settings.from_env()
    if len(group.grounded_texts) < settings.entity_min_grounding:
        return None
    found = index.cache.peek(DESCRIPTIONS)
    if found is None:
        stored = _read_stored(index, signature(embedder, settings), described_stamp(index))
        found = None if stored is None else index.cache.get(DESCRIPTIONS, lambda: stored)
    if found is not None:
        return found.of(group.entity_id)
    key = CacheKey[Description](f"entity-description:{group.entity_id}", group=ENTITIES)
    return index.cache.get(key, lambda: describe(index, group, grounding_hash(index, group), _chat(settings)))


def _stored_file(index: Index) -> Path | None:
    """Where this version's descriptions are stored (None for collections written before the linked folders)."""
    return index.path / linked_folder(index.manifest.generation) / STORED if index.manifest.format > 1 else None


def _read_stored(index: Index, sig: str, stamp: str) -> EntityDescriptions | None:
    """This version's stored descriptions, when there are any with signature ``sig`` and stamp ``stamp``."""
    file = _stored_file(index)
    found = read(file, sig, stamp) if file is not None else None
    return None if found is None else EntityDescriptions(found[0], found[1], loaded=len(found[0]))


def _stored(index: Index, embedder: Embedder, settings: Settings) -> EntityDescriptions:
    sig, stamp = signature(embedder, settings), described_stamp(index)
    stored = _read_stored(index, sig, stamp)
    if stored is not None:
        return stored
    file = _stored_file(index)
    out = build(index, embedder, settings, _previous(index, sig) if file is not None else {})
    if file is not None and file.parent.is_dir():
        write(out, file, sig, stamp)
    return out


def _previous(index: Index, sig: str) -> dict[tuple[str, str], tuple[Description, np.ndarray]]:
    """(entity id, grounding hash) -> (description, vector) of the newest generation with a stored file (this one's,
    when a decision made it stale)."""
    files = list(index.path.glob(f"linked-*/{STORED}"))
    for file in sorted(files, key=lambda f: _generation(f.parent.name), reverse=True):
        found = read(file, sig, None)
        if found is not None:
            return {(d.entity_id, d.grounding_hash): (d, v) for d, v in zip(*found)}
    return {}


def _generation(folder: str) -> int:
    """The generation of a ``linked-N`` folder (-1 when it is not one).

    >>> _generation("linked-12"), _generation("linked-x")
    (12, -1)
    """
    tail = folder.rsplit("-", 1)[-1]
    return int(tail) if tail.isdigit() else -1


def build(index: Index, embedder: Embedder, settings: Settings,
          previous: dict[tuple[str, str], tuple[Description, np.ndarray]] | None = None) -> EntityDescriptions:
    """Describe every entity grounded in at least ``settings.entity_min_grounding`` sentences; reuse the
    descriptions in ``previous`` whose entity and grounding hash are unchanged."""
    start = time.perf_counter()
    previous = previous or {}
    chat = _chat(settings)
    descriptions: list[Description] = []
    vectors: list[np.ndarray | None] = []
    reused = 0
    for group in entity_groups(index):
        if len(group.grounded_texts) < settings.entity_min_grounding:
            continue
        key = grounding_hash(index, group)
        if (group.entity_id, key) in previous:
            description, vector = previous[(group.entity_id, key)]
            descriptions.append(description)
            vectors.append(vector)
            reused += 1
            continue
        descriptions.append(describe(index, group, key, chat))
        vectors.append(None)
    todo = [i for i, v in enumerate(vectors) if v is None]
    encoded = embedder.encode([embedding_text(descriptions[i]) for i in todo], max_tokens=EMBED_TOKENS) \
        if todo else np.zeros((0, embedder.dim), dtype=np.float32)
    for i, vector in zip(todo, encoded):
        vectors[i] = vector
    done = [v for v in vectors if v is not None]
    matrix = np.vstack(done).astype(np.float32) if done else np.zeros((0, embedder.dim), dtype=np.float32)
    return EntityDescriptions(tuple(descriptions), matrix, built=len(todo), reused=reused,
                              seconds=round(time.perf_counter() - start, 3))


def embedding_text(description: Description) -> str:
    """What an entity's description vector encodes.

    >>> embedding_text(Description("rag", "RAG", (DescriptionSentence("RAG retrieves.", ("d/text_0-1",)),),
    ...                            EXTRACTIVE, "h"))
    'RAG: RAG retrieves.'
    """
    return f"{description.name}: {description.text}"


def grounding_hash(index: Index, group: EntityGroup) -> str:
    """A hash of the entity's name and its grounding sentences (ids and texts): it changes exactly when the
    description may need to."""
    digest = hashlib.sha1(group.name.encode())
    for sid in group.grounded_texts:
        text = index.sentence(sid).original if index.has_sentence(sid) else ""
        digest.update(f"\n{sid}\t{text}".encode())
    return digest.hexdigest()[:16]


def _rows(index: Index, group: EntityGroup) -> list[int]:
    """The grounding rows a description may quote: the retrievable ones (all when none is)."""
    rows = sorted({index.sentence_row(s) for s in group.grounded_texts if index.has_sentence(s)})
    kept = [r for r in rows if index.sentences[r].role in RETRIEVABLE]
    return kept or rows


def central_rows(vectors: np.ndarray) -> np.ndarray:
    """Positions of ``vectors`` (rows of normalised vectors), most central first (cosine to their mean).

    >>> central_rows(np.array([[1.0, 0.0], [0.8, 0.6], [0.0, 1.0]])).tolist()
    [1, 0, 2]
    """
    centroid = vectors.mean(axis=0)
    return np.argsort(-(vectors @ centroid), kind="stable")


def mmr_select(vectors: np.ndarray, words: list[int], k: int = MAX_SENTENCES, lam: float = MMR_LAMBDA,
               max_words: int = MAX_WORDS) -> list[int]:
    """Positions of up to ``k`` rows chosen by maximal marginal relevance: centrality against redundancy.

    A near-duplicate of a chosen row (cosine over :data:`MAX_REDUNDANCY`) ends the choice, as does passing
    ``max_words`` (the first row is always kept).

    >>> v = np.array([[1.0, 0.0], [0.99, 0.14], [0.6, 0.8], [0.0, 1.0]])
    >>> mmr_select(v / np.linalg.norm(v, axis=1, keepdims=True), [5, 5, 5, 5], k=2)
    [2, 1]
    """
    centroid = vectors.mean(axis=0)
    norm = float(np.linalg.norm(centroid)) or 1.0
    centrality = vectors @ (centroid / norm)
    chosen: list[int] = []
    redundancy = np.full(len(vectors), -1.0)
    total = 0
    while len(chosen) < min(k, len(vectors)):
        score = lam * centrality - (1 - lam) * np.maximum(redundancy, 0.0)
        score[chosen] = -np.inf
        best = int(np.argmax(score))
        if chosen and (redundancy[best] > MAX_REDUNDANCY or total + words[best] > max_words):
            break
        chosen.append(best)
        total += words[best]
        redundancy = np.maximum(redundancy, vectors @ vectors[best])
    return chosen


def extractive(index: Index, group: EntityGroup, key: str, note: str = "") -> Description:
    """The offline description of ``group``: its most characteristic grounding sentences, each citing itself."""
    rows = _rows(index, group)
    first: dict[str, int] = {}
    for r in rows:
        first.setdefault(index.sentences[r].original, r)  # one row per distinct text
    unique = list(first.values())
    vectors = index.sentence_vectors[unique]
    picked = sorted(unique[p] for p in mmr_select(vectors, [len(index.sentences[r].original.split())
                                                            for r in unique]))
    sentences = tuple(DescriptionSentence(index.sentences[r].original, (index.sentences[r].id,)) for r in picked)
    return Description(group.entity_id, group.name, sentences, EXTRACTIVE, key, note)


def describe(index: Index, group: EntityGroup, key: str, chat: Any = None) -> Description:
    """``group``'s description: by the LLM client ``chat`` when given (checked, retried once, falling back),
    else extractive."""
    if chat is None:
        return extractive(index, group, key)
    rows = _rows(index, group)
    shown = [rows[p] for p in central_rows(index.sentence_vectors[rows])[:LLM_CONTEXT]]
    lines = [(index.sentences[r].id, index.sentences[r].original) for r in sorted(shown)]
    allowed = set(group.grounded_texts)
    reason = ""
    for _attempt in range(2):
        try:
            response, _ = chat.complete(llm_prompt(group.name, lines, reason))
            text, _ = chat.text_of(response)
        except GenerationError as exc:
            return extractive(index, group, key, f"LLM failed, extractive instead: {exc}")
        sentences, reason = check_description(text, allowed)
        if not reason:
            return Description(group.entity_id, group.name, tuple(sentences), LLM, key)
        log.info("description of %s rejected: %s", group.entity_id, reason)
    return extractive(index, group, key, f"LLM description rejected twice ({reason}), extractive instead")


def _chat(settings: Settings) -> Any:
    """The chat client descriptions use, or None (offline) when not asked for or not configured."""
    if not (settings.entity_describe_llm and settings.openai_configured):
        return None
    try:
        return ChatClient(settings, "Entity description")
    except ModelUnavailableError as exc:
        log.warning("entity descriptions stay extractive: %s", exc)
        return None


def write(found: EntityDescriptions, file: Path, sig: str, stamp: str) -> None:
    """Store the descriptions atomically (a temporary file renamed); a store that cannot be written is left alone."""
    records = json.dumps([d.to_dict() for d in found.descriptions], ensure_ascii=False)
    replace_file(file, lambda fh: np.savez(fh, vectors=found.vectors, records=np.array(records),
                                           signature=np.array(sig), stamp=np.array(stamp),
                                           version=np.array(VERSION)), quiet=True)


def read(file: Path, sig: str, stamp: str | None) -> tuple[tuple[Description, ...], np.ndarray] | None:
    """The descriptions stored in ``file`` with signature ``sig`` (and ``stamp`` unless None); None when missing,
    made otherwise, stale or unreadable."""
    try:
        with np.load(file, allow_pickle=False) as data:
            if int(data["version"]) != VERSION or str(data["signature"]) != sig:
                return None
            if stamp is not None and str(data["stamp"]) != stamp:
                return None
            descriptions = tuple(Description.from_dict(d) for d in json.loads(str(data["records"])))
            vectors = np.asarray(data["vectors"], dtype=np.float32)
    except (OSError, ValueError, KeyError, TypeError, zipfile.BadZipFile):
        return None
    return (descriptions, vectors) if len(descriptions) == len(vectors) else None
