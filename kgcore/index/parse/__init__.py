"""Parsing sentences into graphs: the factory for the Parser backends (Φ of the paper).

Backends, one subpackage each: ``srl`` (PropBank frames from spaCy's
dependency parse, :mod:`kgcore.index.parse.srl`) and ``amr`` (amrlib +
penman, :mod:`kgcore.index.parse.amr`); the protocol they implement is
:class:`kgcore.index.parse.base.Parser`.
"""

from __future__ import annotations

from kgcore.core.errors import InputError, KgcoreError
from kgcore.core.settings import PARSERS, Settings
from kgcore.core.types import Sentence, sentence_id
from kgcore.index.bounds import Parallel
from kgcore.index.parse.amr import AmrParser, PenmanParser
from kgcore.index.parse.amr.parser import normalized_key
from kgcore.index.parse.base import QUERY_ID, Parser, Progress
from kgcore.index.parse.srl import SrlParser

__all__ = ["QUERY_ID", "AmrParser", "Parser", "PenmanParser", "Progress", "SrlParser", "compare_parses", "get_parser"]


def get_parser(name: str, settings: Settings | None = None) -> Parser:
    """The parser backend called ``name``, configured from ``settings``."""
    settings = settings or Settings.from_env()
    if name == "srl":
        return SrlParser(settings.spacy_model, parallel=Parallel.of(settings))
    if name == "amr":
        return AmrParser(settings.amr_model, device=settings.device)
    raise InputError("parser", f"unknown value {name!r} (choose one of {', '.join(PARSERS)})")


def compare_parses(sentence_text: str, srl_parser=None, amr_parser=None) -> dict:
    """Both parses of one sentence for a side-by-side view (the paper's Table 3).

    Returns ``{"sentence", "srl", "amr", "errors"}``: each graph is a
    :class:`SentenceGraph` or None, ``errors`` maps a parser name to why it
    gave nothing (missing model, failed parse).  Parsers not given are
    built from the settings with :func:`get_parser`.
    """
    text = normalized_key(sentence_text)
    if not text:
        raise InputError("sentence", "the sentence is empty")
    sentence = Sentence(sentence_id(0, 0), 0, 0, 0, text, text, text)
    result: dict = {"sentence": text, "srl": None, "amr": None, "errors": {}}
    for name, parser in (("srl", srl_parser), ("amr", amr_parser)):
        try:
            graph = (parser or get_parser(name)).parse([sentence])[0]
        except (KgcoreError, ImportError) as exc:
            result["errors"][name] = f"{name} parser unavailable: {exc}"
            continue
        result[name] = graph
        if graph.analysis.get("error"):
            result["errors"][name] = graph.analysis["error"]
    return result
