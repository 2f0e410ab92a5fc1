"""The Chroma copy of a collection: collections ``nodes`` and ``sentences`` kept in step incrementally.

Every commit of a collection updates Chroma with what changed: the added
documents' sentences, the removed documents' sentences deleted, nodes whose
vector changed or that appeared upserted, nodes that disappeared deleted.
``generation`` (a file in the collection's ``chroma/`` folder) records which
collection generation Chroma holds; it is cleared before Chroma is changed
and written after, so a writer stopped while writing Chroma leaves it marked
as behind.  A reader that finds it behind (or Chroma unreadable,
:func:`healthy`) asks the store to rebuild it before using it.
Exact search over the stored matrices stays the default; Chroma's HNSW
search is approximate, so retrieval scores its candidates again with the
stored vectors (:func:`kgcore.query.match.match_nodes`).

Where the copy lives is a :class:`ChromaCopy`:

* **embedded** (the default): a Chroma ``PersistentClient`` in the
  collection's ``chroma/`` folder, collections ``sentences`` and ``nodes``;
* **server** (``KGCORE_CHROMA_URL=http://host:port``, optional
  ``KGCORE_CHROMA_TOKEN`` sent as ``Authorization: Bearer``): Chroma's
  ``HttpClient``; the collection's two Chroma collections are named by the
  store's id (``<store>/.chroma-store-id``, made once) and the collection's
  name (:func:`collection_prefix`), so several stores and collections share
  one server.  ``chroma/`` then holds only the ``generation`` file.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import uuid
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.error import HTTPError, URLError
from urllib.request import Request, urlopen

import numpy as np

from kgcore.core.chroma_config import check_chroma_url
from kgcore.core.errors import DamagedIndexError, ServiceUnavailableError
from kgcore.core.graph import GroundedGraph
from kgcore.core.types import Sentence

CHROMA_DIR = "chroma"
NODE_COLLECTION = "nodes"
SENTENCE_COLLECTION = "sentences"
#: Community summaries as retrieval units (written by :mod:`kgcore.index.views.communities.units`).
SUMMARY_COLLECTION = "summaries"
GENERATION_FILE = "generation"
#: The store's id on a shared Chroma server (a file in the store root, written once).
STORE_ID_FILE = ".chroma-store-id"
_BATCH = 4000
#: Every collection of a copy is searched by cosine.
SPACE = {"hnsw:space": "cosine"}
_SLUG_CHARS = 24
_CLIENTS: dict[tuple[int, ChromaServer], Any] = {}


@dataclass(frozen=True)
class ChromaServer:
    """A Chroma server (``chroma run``) at ``url``; ``token`` (never shown) is sent as a bearer token."""

    url: str
    token: str = field(default="", repr=False)

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> ChromaServer | None:
        """The server ``KGCORE_CHROMA_URL`` names (with ``KGCORE_CHROMA_TOKEN``), or None for embedded Chroma.

        >>> ChromaServer.from_env({"KGCORE_CHROMA_URL": "http://127.0.0.1:8000", "KGCORE_CHROMA_TOKEN": "s3"})
        ChromaServer(url='http://127.0.0.1:8000')
        >>> ChromaServer.from_env({}) is None
        True
        """
        env = os.environ if env is None else env
        url = check_chroma_url(env.get("KGCORE_CHROMA_URL") or "")
        return cls(url, (env.get("KGCORE_CHROMA_TOKEN") or "").strip()) if url else None

    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"} if self.token else {}

    def unavailable(self, what: str, exc: BaseException) -> ServiceUnavailableError:
        """The error for a failed request: the server, what failed, why, and what to do."""
        return ServiceUnavailableError(
            f"Chroma server {self.url}: {what} failed ({type(exc).__name__}: {exc}); start it "
            f"(chroma run --path DIR --host HOST --port PORT), check KGCORE_CHROMA_URL and KGCORE_CHROMA_TOKEN, "
            "or unset KGCORE_CHROMA_URL to use the embedded Chroma")


@dataclass(frozen=True)
class ChromaCopy:
    """Where one collection's Chroma copy lives: ``folder`` (its ``chroma/`` folder: the generation marker, and
    the database itself when embedded) and, with a ``server``, the prefix of its Chroma collections' names."""

    folder: Path
    server: ChromaServer | None = None
    prefix: str = ""

    @property
    def names(self) -> tuple[str, str]:
        """The Chroma collection names of (sentences, nodes).

        >>> ChromaCopy(Path("c/chroma")).names
        ('sentences', 'nodes')
        >>> ChromaCopy(Path("c/chroma"), ChromaServer("http://h:1"), "kg-ab12-shelf-0f0f").names
        ('kg-ab12-shelf-0f0f-sentences', 'kg-ab12-shelf-0f0f-nodes')
        """
        if self.server is None:
            return SENTENCE_COLLECTION, NODE_COLLECTION
        return f"{self.prefix}-{SENTENCE_COLLECTION}", f"{self.prefix}-{NODE_COLLECTION}"

    @property
    def summary_name(self) -> str:
        """The Chroma collection of the community summaries.

        >>> server = ChromaServer("http://h:1")
        >>> ChromaCopy(Path("c/chroma")).summary_name, ChromaCopy(Path("c"), server, "kg-a").summary_name
        ('summaries', 'kg-a-summaries')
        """
        return SUMMARY_COLLECTION if self.server is None else f"{self.prefix}-{SUMMARY_COLLECTION}"

    def describe(self) -> str:
        """Where the copy is, for messages."""
        if self.server is None:
            return str(self.folder)
        return f"{self.server.url} (collections {', '.join(self.names)})"


def collection_prefix(store_id: str, collection: str) -> str:
    """The name prefix of a collection's Chroma collections on a server: store id, readable slug, name hash.

    Chroma names are 3-512 characters of ``[a-zA-Z0-9._-]``, starting and ending alphanumeric (63 at most on
    older servers, which these names keep to); the hash keeps names that slug alike ("Peter Rabbit",
    "peter_rabbit!") apart.

    >>> collection_prefix("3f2a9c1e0b7d", "Peter Rabbit (2nd ed.)")
    'kg-3f2a9c1e0b7d-Peter-Rabbit-2nd-ed-83597254'
    >>> len(collection_prefix("3f2a9c1e0b7d", "x" * 300) + "-sentences") <= 63
    True
    """
    slug = re.sub(r"[^A-Za-z0-9_]+", "-", collection).strip("-_")[:_SLUG_CHARS].strip("-_") or "c"
    digest = hashlib.sha256(collection.encode("utf-8")).hexdigest()[:8]
    return f"kg-{store_id}-{slug}-{digest}"


def store_id(root: Path) -> str:
    """The id of the store at ``root`` on a Chroma server: read from ``.chroma-store-id``, or made once (two
    processes making it at once agree: the first link wins)."""
    path = Path(root) / STORE_ID_FILE
    try:
        return _valid_id(path.read_text(encoding="utf-8"), path)
    except FileNotFoundError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"{STORE_ID_FILE}.{uuid.uuid4().hex[:8]}.tmp")
    tmp.write_text(uuid.uuid4().hex[:12], encoding="utf-8")
    try:
        os.link(tmp, path)
    except FileExistsError:
        pass
    finally:
        tmp.unlink(missing_ok=True)
    return _valid_id(path.read_text(encoding="utf-8"), path)


def _valid_id(text: str, path: Path) -> str:
    value = text.strip()
    if not re.fullmatch(r"[a-z0-9]{4,32}", value):
        raise DamagedIndexError(path, f"not a store id: {value[:40]!r}", "delete the file (a new id is made, and "
                                "every collection's Chroma copy is built again on the server)")
    return value


def open_chroma(path: Path):
    """A Chroma PersistentClient with telemetry off (no embedding function is ever used)."""
    import chromadb
    from chromadb.config import Settings as ChromaSettings

    try:
        return chromadb.PersistentClient(path=str(path), settings=ChromaSettings(anonymized_telemetry=False))
    except Exception:
        _forget(path)
        raise


def _forget(path: Path) -> None:
    """Drop Chroma's cached client of ``path``: one that failed to start (a damaged file) stays cached and
    broken otherwise, and the copy rebuilt at the same path could not be opened in this process."""
    from chromadb.api.shared_system_client import SharedSystemClient

    cache = getattr(SharedSystemClient, "_identifier_to_system", {})
    cache.pop(str(path), None)


def http_client(server: ChromaServer):
    """Chroma's HttpClient of ``server``, made once per process (it checks the server when made)."""
    key = (os.getpid(), server)
    if key not in _CLIENTS:
        import chromadb
        from chromadb.config import Settings as ChromaSettings

        parts = server.url.split("://", 1)[1].rsplit(":", 1)
        settings = ChromaSettings(anonymized_telemetry=False)
        if server.token:
            settings = ChromaSettings(anonymized_telemetry=False, chroma_client_auth_credentials=server.token,
                                      chroma_client_auth_provider="chromadb.auth.token_authn.TokenAuthClientProvider")
        try:
            _CLIENTS[key] = chromadb.HttpClient(host=parts[0].strip("[]"), port=int(parts[1]),
                                                ssl=server.url.startswith("https:"), settings=settings)
        except Exception as exc:  # noqa: BLE001 - connection, auth and protocol errors have no common base
            raise server.unavailable("connecting", exc) from None
    return _CLIENTS[key]


@contextmanager
def client_of(copy: ChromaCopy) -> Iterator[Any]:
    """A Chroma client of ``copy`` for one piece of work (embedded: opened and closed; server: shared)."""
    if copy.server is None:
        client = open_chroma(copy.folder)
        try:
            yield client
        finally:
            client.close()
        return
    server = copy.server
    client = http_client(server)
    try:
        yield client
    except ServiceUnavailableError:
        raise
    except Exception as exc:  # noqa: BLE001 - see http_client
        if _is_transport_error(exc):
            _CLIENTS.pop((os.getpid(), server), None)
            raise server.unavailable("a request", exc) from None
        raise


def _is_transport_error(exc: BaseException) -> bool:
    """A connection-level failure (the server down or unreachable), as opposed to Chroma refusing a request."""
    return isinstance(exc, (ConnectionError, TimeoutError, OSError)) or type(exc).__module__.startswith("httpx")


def heartbeat_problem(server: ChromaServer, timeout_s: float = 3.0) -> str:
    """Why ``server`` does not answer its heartbeat within ``timeout_s`` ("" when it does)."""
    request = Request(f"{server.url}/api/v2/heartbeat", headers=server.headers())
    try:
        with urlopen(request, timeout=timeout_s) as response:  # noqa: S310 - the URL was checked to be http(s)
            json.loads(response.read(1 << 16) or b"{}")
    except HTTPError as exc:
        return f"HTTP {exc.code} {exc.reason}"
    except URLError as exc:
        return str(exc.reason)
    except (OSError, ValueError) as exc:
        return f"{type(exc).__name__}: {exc}"
    return ""


def ping(server: ChromaServer, timeout_s: float = 3.0) -> None:
    """Check that ``server`` answers its heartbeat within ``timeout_s`` (ServiceUnavailableError otherwise)."""
    problem = heartbeat_problem(server, timeout_s)
    if problem:
        raise server.unavailable("the heartbeat", RuntimeError(problem))


def _copy(where: ChromaCopy | Path) -> ChromaCopy:
    """``where`` as a ChromaCopy (a folder: the embedded copy in it)."""
    return where if isinstance(where, ChromaCopy) else ChromaCopy(Path(where))


def generation(where: ChromaCopy | Path) -> int:
    """The collection generation the Chroma copy holds (-1: none)."""
    copy = _copy(where)
    try:
        return int((copy.folder / GENERATION_FILE).read_text(encoding="utf-8").strip())
    except (OSError, ValueError):
        return -1


def mark_behind(where: ChromaCopy | Path) -> None:
    """Record that the Chroma copy holds no complete generation (it is being written, or damaged)."""
    copy = _copy(where)
    copy.folder.mkdir(parents=True, exist_ok=True)
    (copy.folder / GENERATION_FILE).write_text("-1", encoding="utf-8")


def healthy(where: ChromaCopy | Path, sentences: int, nodes: int) -> bool:
    """Whether the Chroma copy opens and holds ``sentences`` sentences and ``nodes`` nodes (a server that cannot
    be reached is a ServiceUnavailableError, not a copy to rebuild)."""
    copy = _copy(where)
    try:
        with client_of(copy) as client:
            counts = tuple(client.get_collection(c).count() for c in copy.names)
    except ServiceUnavailableError:
        raise
    except Exception:  # noqa: BLE001 - a damaged database fails in many ways; all mean "rebuild it"
        return False
    return counts == (sentences, nodes)


def reset(copy: ChromaCopy) -> None:
    """Remove the Chroma copy, to be built again from the shards (it is marked behind)."""
    if copy.server is None:
        shutil.rmtree(copy.folder, ignore_errors=True)
        return
    mark_behind(copy)
    drop(copy)


def drop(copy: ChromaCopy) -> None:
    """Delete a server copy's Chroma collections (the collection is deleted); an embedded copy goes with its
    folder."""
    if copy.server is None:
        return
    with client_of(copy) as client:
        existing = {getattr(c, "name", c) for c in client.list_collections()}
        for name in (*copy.names, copy.summary_name):
            if name in existing:
                client.delete_collection(name)


def update(copy: ChromaCopy, graph: GroundedGraph, node_ids: Sequence[str], node_vectors: np.ndarray,
           previous: dict[str, np.ndarray], documents: dict[str, tuple[list[Sentence], np.ndarray]],
           dropped: Sequence[str], generation_no: int) -> None:
    """Bring the Chroma copy to a new generation.

    ``previous`` maps node ids to the vectors Chroma holds; ``documents`` are
    the (re)added documents' sentences and vectors; ``dropped`` the ids of
    documents removed or replaced.
    """
    sentence_name, node_name = copy.names
    with client_of(copy) as client:  # connected first: a server that is down leaves the copy as it was
        mark_behind(copy)
        sentences = client.get_or_create_collection(sentence_name, embedding_function=None, metadata=SPACE)
        for doc_id in dropped:
            sentences.delete(where={"document": doc_id})
        for doc_id, (rows, vectors) in documents.items():
            meta = [{"document": doc_id, "position": s.position} for s in rows]
            write_batched(sentences.add, [s.id for s in rows], vectors, meta, [s.original for s in rows])
        nodes = client.get_or_create_collection(node_name, embedding_function=None, metadata=SPACE)
        _update_nodes(nodes, graph, node_ids, node_vectors, previous)
    (copy.folder / GENERATION_FILE).write_text(str(generation_no), encoding="utf-8")


def _update_nodes(collection, graph: GroundedGraph, node_ids: Sequence[str], vectors: np.ndarray,
                  previous: dict[str, np.ndarray]) -> None:
    keep = set(node_ids)
    gone = [i for i in previous if i not in keep]
    for start in range(0, len(gone), _BATCH):
        collection.delete(ids=gone[start:start + _BATCH])
    changed = [r for r, i in enumerate(node_ids) if i not in previous or not np.allclose(previous[i], vectors[r])]
    ids = [node_ids[r] for r in changed]
    meta = [{"label": graph.nodes[i].label, "node_type": graph.nodes[i].node_type} for i in ids]
    write_batched(collection.upsert, ids, vectors[changed], meta, [graph.nodes[i].label for i in ids])


def write_batched(write, ids: list[str], vectors: np.ndarray, metadatas: list[dict], documents: list[str]) -> None:
    """``write`` (a collection's ``add`` or ``upsert``) the rows in batches Chroma accepts."""
    for start in range(0, len(ids), _BATCH):
        end = start + _BATCH
        write(ids=ids[start:end], embeddings=np.asarray(vectors[start:end], dtype=np.float32),
              metadatas=metadatas[start:end], documents=documents[start:end])


def query_nodes(copy: ChromaCopy, vectors: np.ndarray, k: int, total: int) -> list[list[tuple[str, float]]]:
    """Top-``k`` (node id, cosine) per query vector from the nodes collection."""
    with client_of(copy) as client:
        result = client.get_collection(copy.names[1]).query(
            query_embeddings=np.asarray(vectors, dtype=np.float32), n_results=min(k, total), include=["distances"])
    return [[(i, 1.0 - d) for i, d in zip(ids, dists)] for ids, dists in zip(result["ids"], result["distances"])]
