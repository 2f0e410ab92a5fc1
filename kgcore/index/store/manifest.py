"""The typed manifest of an index: what was indexed, how, with which models, and what came out.

``manifest.json`` in every index folder is :meth:`Manifest.to_dict`; its keys
and their order are those kgcore 0.1 wrote, so stores written before the
manifest was typed open unchanged.  Manifests from before a field existed are
migrated on load (:meth:`Manifest.from_dict`): an index built before narrator
resolution records ``narrator="none"`` among its options, because that is
what was done to it.

>>> m = Manifest.from_dict({"doc_id": "peter", "options": {"parser": "srl"}, "counts": {"sentences": 3}})
>>> m.options.narrator, m.counts.sentences, m.narrator is None
('none', 3, True)
>>> Manifest.from_dict(m.to_dict()) == m
True
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any

from kgcore.core.document import IngestReport, Narrator
from kgcore.core.errors import KgcoreError
from kgcore.core.settings import IndexOptions

#: Option values an index built before the option existed was built with.
_OPTIONS_BEFORE = {"narrator": "none"}


def manifest_hash(manifest: Mapping[str, Any]) -> str:
    """Stable short hash of a manifest dict (identifies exactly which index answered).

    >>> manifest_hash({"a": 1, "b": 2}) == manifest_hash({"b": 2, "a": 1})
    True
    """
    canonical = json.dumps(manifest, sort_keys=True, ensure_ascii=True, default=str)
    return hashlib.sha256(canonical.encode()).hexdigest()[:16]


@dataclass(frozen=True)
class Counts:
    """Sizes of an index; ``words`` are whitespace words of the original sentences."""

    sentences: int = 0
    chunks: int = 0
    words: int = 0
    nodes: int = 0
    entities: int = 0
    actions: int = 0
    edges: int = 0


@dataclass(frozen=True)
class Models:
    """The models an index depends on besides its options (checked on reuse and at query time)."""

    spacy: str = ""
    embedding: str = ""
    embedding_dim: int = 0


@dataclass(frozen=True)
class Manifest:
    """One index's manifest (``manifest.json``)."""

    doc_id: str
    kgcore_version: str = ""
    source_file: str = ""
    source_sha256: str = ""
    created_at: str = ""
    options: IndexOptions = field(default_factory=IndexOptions)
    models: Models = field(default_factory=Models)
    counts: Counts = field(default_factory=Counts)
    narrator: Narrator | None = None
    #: What loading the file found (kgcore 0.3 on; None for older indexes).
    ingest: IngestReport | None = None
    timings_s: dict[str, float] = field(default_factory=dict, compare=False)
    seconds: float = 0.0
    #: Keys a newer kgcore wrote that this one does not know; written back unchanged.
    extra: dict[str, Any] = field(default_factory=dict, compare=False)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], where: str = "manifest") -> Manifest:
        """Read (and migrate) a manifest dict; a malformed one is a :class:`KgcoreError` naming ``where``."""
        known = {f.name for f in fields(cls)} - {"extra"}
        try:
            return cls(
                doc_id=str(data["doc_id"]),
                kgcore_version=str(data.get("kgcore_version", "")),
                source_file=str(data.get("source_file", "")),
                source_sha256=str(data.get("source_sha256", "")),
                created_at=str(data.get("created_at", "")),
                options=IndexOptions(**{**_OPTIONS_BEFORE, **data.get("options", {})}),
                models=Models(**data.get("models", {})),
                counts=Counts(**data.get("counts", {})),
                narrator=Narrator(**data["narrator"]) if data.get("narrator") else None,
                ingest=IngestReport.from_dict(data["ingest"]) if data.get("ingest") else None,
                timings_s=dict(data.get("timings_s", {})),
                seconds=float(data.get("seconds") or 0.0),
                extra={k: v for k, v in data.items() if k not in known},
            )
        except (KeyError, TypeError, ValueError, KgcoreError) as exc:
            reason = f"{type(exc).__name__}: {exc}"
            raise KgcoreError(f"{where}: damaged manifest ({reason}); re-index the document") from exc

    def to_dict(self) -> dict[str, Any]:
        """The JSON object written to ``manifest.json`` (key order as kgcore has always written it)."""
        return {
            "kgcore_version": self.kgcore_version,
            "doc_id": self.doc_id,
            "source_file": self.source_file,
            "source_sha256": self.source_sha256,
            "created_at": self.created_at,
            "options": self.options.to_dict(),
            "models": _plain(self.models),
            "counts": _plain(self.counts),
            "narrator": self.narrator.to_dict() if self.narrator else None,
            **({"ingest": self.ingest.to_dict()} if self.ingest else {}),
            "timings_s": dict(self.timings_s),
            "seconds": self.seconds,
            **self.extra,
        }

    @property
    def content_hash(self) -> str:
        """:func:`manifest_hash` of this manifest: which index, exactly, answered."""
        return manifest_hash(self.to_dict())

    @property
    def variant(self) -> str:
        """``parser/coref/embedding`` of the index, e.g. ``srl/heuristic/basic``.

        >>> Manifest("d").variant
        'srl/heuristic/basic'
        """
        return f"{self.options.parser}/{self.options.coref}/{self.options.embedding}"


@dataclass(frozen=True)
class IndexOutcome:
    """What indexing one document did: its manifest, whether an indexed copy was reused, and its collection."""

    manifest: Manifest
    reused: bool = False
    collection: str = ""

    @property
    def doc_id(self) -> str:
        return self.manifest.doc_id

    def summary(self) -> dict[str, Any]:
        """The one JSON line ``python -m kgcore index`` prints."""
        m = self.manifest
        return {"doc_id": m.doc_id, "sentences": m.counts.sentences, "nodes": m.counts.nodes,
                "narrator": (m.narrator.name if m.narrator else None) or None,
                "edges": m.counts.edges, "seconds": m.seconds, "reused": self.reused}


def _plain(value: Counts | Models) -> dict[str, Any]:
    return {f.name: getattr(value, f.name) for f in fields(value)}
