"""Fixtures the model tests share: the real spaCy pipeline and the offline extractive answerer over it and MiniLM
(a test module that needs other settings defines its own, which wins)."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def nlp():
    from kgcore.core.nlp import load_spacy

    return load_spacy()


@pytest.fixture(scope="session")
def extractive(nlp):
    from kgcore.core.embed import get_embedder
    from kgcore.query.answer.extractive import ExtractiveGenerator

    return ExtractiveGenerator(embedder=get_embedder(), nlp=nlp)
