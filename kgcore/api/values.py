"""Value types, errors and settings: what every other part of the API takes and returns.

Sentences, answers, query results and graph nodes (``kgcore.core.types``, ``kgcore.core.graph``), loaded
documents (``kgcore.core.document``), the errors every failure raises (``kgcore.core.errors``) and the
settings read from ``KGCORE_*`` variables (``kgcore.core.settings``).
"""

from __future__ import annotations

from kgcore.core.document import IngestReport, Narrator, Paragraph, Reference
from kgcore.core.errors import (
    AuditError,
    Cancelled,
    DamagedIndexError,
    IndexMismatchError,
    IndexNotFoundError,
    InputError,
    KgcoreError,
    ModelUnavailableError,
    ServiceUnavailableError,
)
from kgcore.core.graph import is_pronoun_label, is_proper_name, scoped_id
from kgcore.core.qa_pair import QAPair
from kgcore.core.settings import (
    COREF_BACKENDS,
    EMBEDDING_VARIANTS,
    PARSERS,
    RANKINGS,
    IndexOptions,
    RetrievalOptions,
    Settings,
)
from kgcore.core.types import (
    BODY,
    CAPTION,
    OPT_IN,
    RETRIEVABLE,
    ROLES,
    TABLE,
    Answer,
    Edge,
    Frame,
    LocalNode,
    Match,
    Node,
    QueryResult,
    SelectedSentence,
    Sentence,
    SentenceGraph,
    split_sentence_id,
)
from kgcore.core.verdicts import Alternative, ClaimCheck, Verdict

__all__ = ["Alternative", "Answer", "AuditError", "BODY", "Cancelled", "CAPTION", "ClaimCheck", "COREF_BACKENDS",
    "DamagedIndexError", "Edge",
    "EMBEDDING_VARIANTS", "Frame", "IndexMismatchError", "IndexNotFoundError", "IndexOptions", "IngestReport",
    "InputError", "is_pronoun_label", "is_proper_name", "KgcoreError", "LocalNode", "Match", "ModelUnavailableError",
    "Narrator", "Node", "OPT_IN", "Paragraph", "PARSERS", "QAPair", "QueryResult", "RANKINGS", "Reference",
    "RETRIEVABLE", "RetrievalOptions", "ROLES", "scoped_id", "SelectedSentence", "Sentence", "SentenceGraph",
    "ServiceUnavailableError", "Settings", "split_sentence_id", "TABLE", "Verdict"]
