"""Collections: indexing files into them (at once, or as background jobs), the store that keeps them, removing
documents.

``index_files`` runs the pipeline (``kgcore.index.pipeline``) and commits to a :class:`Store`
(``kgcore.index.store``); ``Store.load`` returns the :class:`Index` every question reads.
"""

from __future__ import annotations

from kgcore.index.clean import strip_gutenberg
from kgcore.index.jobs import FINISHED as JOB_FINISHED
from kgcore.index.jobs import JobFile, JobQueue, JobRecord, JobSupervisor, Step, duration, stuck
from kgcore.index.jobs.queue import Upload
from kgcore.index.load import SUPPORTED_EXTENSIONS, decode_text, doc_id_for, load_document
from kgcore.index.parse import compare_parses
from kgcore.index.parse.amr.parser import AmrParser
from kgcore.index.pdf import read_pdf
from kgcore.index.pdf.extract import read_pages
from kgcore.index.pipeline import (
    COLLECTION_STAGES,
    collection_step,
    index_file,
    index_files,
    is_collection_step,
    remove_documents,
)
from kgcore.index.pipeline import STAGES as INDEX_STAGES
from kgcore.index.qa.base import normalized
from kgcore.index.ray_runner import RayRunner
from kgcore.index.sentences import split_sentences
from kgcore.index.store.collection import CollectionManifest, CollectionOutcome
from kgcore.index.store.disk import Store
from kgcore.index.store.footprint import Footprint, measure_load
from kgcore.index.store.in_memory import Index
from kgcore.index.store.manifest import Manifest
from kgcore.index.workers import Job

__all__ = ["AmrParser", "COLLECTION_STAGES", "CollectionManifest", "CollectionOutcome", "Footprint", "INDEX_STAGES",
    "Index", "JOB_FINISHED", "Job", "JobFile", "JobQueue", "JobRecord", "JobSupervisor", "Manifest", "RayRunner",
    "SUPPORTED_EXTENSIONS", "Step", "Store", "Upload", "collection_step", "compare_parses", "decode_text",
    "doc_id_for", "duration", "index_file", "index_files", "is_collection_step", "load_document", "normalized",
    "measure_load", "read_pages", "read_pdf", "remove_documents", "split_sentences", "strip_gutenberg", "stuck"]
