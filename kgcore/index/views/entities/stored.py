"""The resolver's output stored with the collection's linked graph (derived data, like the contextual graph).

``entities.json`` in ``linked-<generation>/`` holds the candidates and node types for the collection at its
stamp; a stale, older or unreadable file is ignored and rebuilt.  People's decisions are not here (see
:mod:`kgcore.index.views.entities.decisions`).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from kgcore.index.store.in_memory import Index
from kgcore.index.store.recovery import linked_folder
from kgcore.index.views.entities.decisions import Merge, write_json
from kgcore.index.views.entities.outcome import Resolution, SharedName, Thresholds

STORED = "entities.json"
#: Bumped whenever the resolver or the typer changes, so an older stored resolution is rebuilt.
#: 4: a name that says, thinks or feels is a person (entities.animate); 5: so is a common noun, and a word
#: written once in capitals among ordinary mentions is no acronym (entities.names.is_named); 6: a story's common noun
#: that names someone ("mother") is a person by its noun (entities.types.pattern_type); 7: what a name's sentences say
#: it is ("Chubby is a lock service": a system; entities.evidence), and the research types system and organisation;
#: 8: in papers, a person only with a person's cues (entities.people), and software by its verbs and examples;
#: 9: every name of a coordinated subject is the verb's subject, "developed in" or "built in" no sign of code,
#: an organisation's author field no surname, a numbered bracket a citation only where it resolved, and "he" or
#: "she" a person's cue past the names NER reads.
VERSION = 9


def file_of(index: Index) -> Path | None:
    """Where the resolution of ``index`` is stored (None for a kgcore 0.1 collection)."""
    return index.path / linked_folder(index.manifest.generation) / STORED if index.manifest.format > 1 else None


def load_or_build(index: Index, build: Callable):
    """The stored resolution when it is current, else ``build(index)`` stored (a store that cannot be written
    is left alone)."""
    file = file_of(index)
    if file is not None:
        try:
            data = json.loads(file.read_text(encoding="utf-8"))
            if data.get("version") == VERSION and data.get("stamp") == index.manifest.stamp:
                return Resolution(tuple(Merge.from_dict(m) for m in data["candidates"]),
                                  {k: (str(t), float(c)) for k, (t, c) in data["node_types"].items()},
                                  str(data["type_set"]), float(data["seconds"]), Thresholds(**data["thresholds"]),
                                  {str(k): str(v) for k, v in data["common"].items()},
                                  tuple(SharedName(s[0], s[1], (s[2], s[3]), float(s[4])) for s in data["shared"]))
        except (OSError, ValueError, KeyError, TypeError):
            pass
    found = build(index)
    if file is not None:
        payload = {"version": VERSION, "stamp": index.manifest.stamp, "type_set": found.type_set,
                   "seconds": found.seconds, "thresholds": vars(found.thresholds),
                   "node_types": {k: list(v) for k, v in found.node_types.items()},
                   "candidates": [m.to_dict() for m in found.candidates], "common": dict(found.common),
                   "shared": [[s.node_id, s.name, *s.documents, s.cosine] for s in found.shared_names]}
        try:
            write_json(file, payload)
        except OSError:
            pass
    return found
