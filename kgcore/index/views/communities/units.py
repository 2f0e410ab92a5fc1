"""Community summaries as their own retrieval units in Chroma (summaries are stored once and reused).

Next to a collection's ``sentences`` and ``nodes`` (:mod:`kgcore.index.store.chroma`), its Chroma copy holds a
``summaries`` collection (``<prefix>-summaries`` on a server): one row per community, its id the community
id, its vector the summary's vector, its document the title and summary text, its metadata the level, the
kind (extractive or report) and the number of sentences it cites.  Which build it holds is the ``summaries``
marker file in the copy's folder: the collection stamp and the community parameters (:func:`marker`).
:func:`sync` writes the collection again whenever the marker differs (a new generation, other parameters),
clearing the marker first, so a writer stopped half-way leaves it marked stale; :func:`nearest` asks it for
the nearest summaries, writing it again once when it turns out missing or damaged.  Like the rest of the copy
it is derived: the stored ``communities.npz`` stays the source, and exact search over its vectors remains the
default.
"""

from __future__ import annotations

import numpy as np

from kgcore.core.atomic import replace_text
from kgcore.core.errors import DamagedIndexError, ServiceUnavailableError
from kgcore.index.store.chroma import SPACE, ChromaCopy, client_of, write_batched
from kgcore.index.store.locks import collection_lock
from kgcore.index.views.communities.stored import CommunityIndex

#: The marker file (in the copy's folder) naming the build the collection holds.
MARKER = "summaries"


def marker(stamp: str, ci: CommunityIndex) -> str:
    """What identifies a build: the collection's stamp and the parameters the communities were built with."""
    p = ci.params
    return f"{stamp}|{p.algorithm}|{p.max_cluster_size}|{p.seed}|{p.llm}|{len(ci.summaries)}"


def held(copy: ChromaCopy) -> str:
    """The marker of the build the copy's summaries collection holds ("" when none or stale)."""
    try:
        return (copy.folder / MARKER).read_text(encoding="utf-8").strip()
    except OSError:
        return ""


def sync(copy: ChromaCopy, ci: CommunityIndex, stamp: str, force: bool = False) -> bool:
    """Make the copy's summaries collection hold ``ci`` (built for ``stamp``); False when its marker says it already
    did (``force``: write it all the same, e.g. after a query found it missing, damaged or short).

    Writers take the collection's writer lock (:func:`~kgcore.index.store.locks.collection_lock`; the copy's folder is
    ``<store>/<collection>/chroma``) and look at the marker again once they hold it, so two processes finding it
    stale write it once, one after the other, and a reader never sees a half-written collection as current.
    """
    wanted = marker(stamp, ci)
    if held(copy) == wanted and not force:
        return False
    with collection_lock(copy.folder.parent.parent, copy.folder.parent.name):
        if held(copy) == wanted and not force:
            return False
        _write(copy, ci, wanted)
    return True


def _write(copy: ChromaCopy, ci: CommunityIndex, wanted: str) -> None:
    name = copy.summary_name
    with client_of(copy) as client:  # connected first: a server that is down leaves the copy as it was
        copy.folder.mkdir(parents=True, exist_ok=True)
        (copy.folder / MARKER).unlink(missing_ok=True)
        if name in {getattr(c, "name", c) for c in client.list_collections()}:
            client.delete_collection(name)
        collection = client.create_collection(name, embedding_function=None, metadata=SPACE)
        write_batched(collection.add, [s.community for s in ci.summaries], ci.vectors,
                      [{"level": ci.community(s.community).level, "kind": s.kind, "sentences": len(s.sentence_ids)}
                       for s in ci.summaries], [f"{s.title}: {s.text}" for s in ci.summaries])
    replace_text(copy.folder / MARKER, wanted)


def nearest(copy: ChromaCopy, ci: CommunityIndex, stamp: str, vector: np.ndarray, n: int) -> list[tuple[str, float]]:
    """:func:`query` on a copy brought to ``ci`` first; a collection found missing, damaged or not holding every
    summary (a wiped server, a broken file) is written again once and asked again."""
    sync(copy, ci, stamp)
    try:
        return query(copy, vector, n, expected=len(ci.summaries))
    except ServiceUnavailableError:
        raise
    except Exception:  # noqa: BLE001 - a missing or damaged collection fails in many ways; all mean "write it"
        sync(copy, ci, stamp, force=True)
        return query(copy, vector, n)


def query(copy: ChromaCopy, vector: np.ndarray, n: int, expected: int | None = None) -> list[tuple[str, float]]:
    """The ``n`` summaries nearest ``vector`` in the copy: (community id, cosine), best first; a collection not
    holding ``expected`` summaries is an error (:class:`~kgcore.core.errors.DamagedIndexError`)."""
    with client_of(copy) as client:
        collection = client.get_collection(copy.summary_name)
        total = collection.count()
        if expected is not None and total != expected:
            raise DamagedIndexError(copy.folder, f"the summaries collection holds {total} of {expected} summaries",
                                    "it is written again")
        if not total:
            return []
        result = collection.query(query_embeddings=np.asarray([vector], dtype=np.float32),
                                  n_results=min(n, total), include=["distances"])
    return [(i, 1.0 - d) for i, d in zip(result["ids"][0], result["distances"][0])]
